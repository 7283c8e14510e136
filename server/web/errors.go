package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/store"
)

// Error is an API failure: the HTTP status and the exact text the spec gives
// for it, plus optional details (problem.Problem: the business packages
// declare theirs beside their rules).
type Error = problem.Problem

// NewError is an API failure of status with text.
func NewError(status int, text string) *Error { return problem.New(status, text) }

// The spec's texts, each written once. Routes pick theirs in routes.go.
const (
	textMissingParameters         = "Missing parameters"
	textMissingRequiredParameters = "Missing required parameters"
	textMissingRequiredDot        = "Missing required parameters."
	textInvalidData               = "Invalid data"
	textInvalidAuthenticationData = "Invalid authentication data."
	textInvalidToken              = "Invalid token"
	textUnitNotFound              = "Unit not found"
	textUnitNotFoundDot           = "Unit not found."
	TextInvalidParameterFormat    = "Invalid parameter format"
	TextNoFieldsToUpdate          = "No fields provided to update"
	TextNoFieldsToUpdateDot       = "No fields provided to update."

	TextSomethingWentWrong = "Something went wrong. Please try again later."
	textUnexpectedError    = "An unexpected error occurred. Please try again later."
	textServerError        = "Server error"
	textErroDesconhecido   = "Erro desconhecido"

	// Contacts (spec, /insert_contact and /update_contact).
	TextInvalidCPF            = "Invalid CPF."
	TextInvalidCNPJ           = "Invalid CNPJ."
	TextFullNameRequired      = "Full name is required for natural persons."
	TextSocialReasonRequired  = "Company name (social reason) is required for legal entities."
	TextInvalidContactType    = "Invalid contact type."
	TextRegisterUsed          = "Register already used in a contact of this unit."
	TextContactNotFound       = "Contact not found or not updated."
	TextBankAccountNotFound   = "Bank account not found or not updated"
	TextCategoryNotFound      = "Category not found or not updated."
	TextProjectNotFound       = "Project not found or not updated."
	TextProductNotFound       = "Product or service not found or not updated."
	TextProductCodeUsed       = "Product code already used in this unit."
	TextInvalidProductCode    = "Invalid code. Use 1 to 60 characters."
	TextCategoryExists        = "Category already exists for this type."
	TextCategoryGroupNotFound = "Category group not found for this type."

	// Sales orders (spec, /insert_sales_order and /list_sales_orders).
	textMissingRequiredFields = "Missing required fields"
	TextDatesRequired         = "Parâmetros de data são obrigatórios."
	textErroInserirPedido     = "Erro ao inserir pedido"
	textSalesOrderNotFound    = "Sales order not found or not updated."
	TextInvalidNotifyEmail    = "Invalid %s. Use an e-mail address."

	// Charges and the payment portal.
	TextRemittanceNotFound = "Remittance not found: no file of that sequence was written for this provider's agreement."
	TextNotReturn          = "Not a CNAB 240 return file of this bank: nothing was applied."
	TextForeignReturn      = "This return file is another beneficiary's: its header's CNPJ, agency, account or agreement (details.fields) are not the unit's agreement's. Nothing was applied."
	TextNotOFX             = "Not an OFX bank statement: nothing was imported."
	TextOtherAccount       = "The file holds no statement of this bank account (details.accounts lists those it holds): nothing was imported."
	TextNotReais           = "The statement is not in reais (CURDEF BRL): nothing was imported."
	TextLineNotFound       = "Statement line not found."
	textReconcileWhat      = "To match a statement line give id_token_entry or id_token_sales_order, one of them."
	TextPayerIncomplete    = "The customer lacks what the bank needs to register a boleto: complete the contact (details.missing: its CPF or CNPJ in digits, address, city, state and zip_code), then try again."
	TextOnlinePayment      = "Online payment is not available for this charge: pay the boleto or the PIX code."
	TextPortalNotFound     = "Pedido não encontrado ou cobrança cancelada."
	TextBoletoRegistering  = "Este boleto está sendo registrado no banco e ainda não pode ser pago. Tente de novo em algumas horas."
	TextBoletoRejected     = "O banco recusou o registro deste boleto. Fale com o vendedor para receber outro."
	TextTooManyRequests    = "Muitas requisições. Tente de novo em instantes."

	// Fiscal invoices.
	textInvoiceInvalid  = "The order's fiscal data is incomplete: fix every problem listed in details."
	textCancelReason    = "The cancellation reason needs 15 to 255 characters."
	TextInvoiceNotFound = "Nota fiscal não encontrada."
	TextNoDANFE         = "Esta nota fiscal não foi autorizada pela SEFAZ: ela não tem DANFE."
	textSealedKey       = "The server's secrets key does not open the unit's certificate or CSC: start it with the --secrets-key-file that sealed them."
	textCertificate     = "The unit's digital certificate cannot sign: %s. Install a valid one with fincom unit cert."

	// Inventory (spec, /get_inventory_moviment and /get_inventory_reports).
	textDBQueryError      = "DB Query Error"
	TextReportParams      = "Parâmetros 'year' e 'type_data' são obrigatórios."
	TextMovementNotFound  = "Inventory movement not found or not updated."
	TextInvalidQuantity   = "Invalid quantity. It must be greater than zero, with up to 3 decimal places."
	TextInvalidUnitary    = "Invalid unitary_value. It must not be negative."
	TextInvalidMoveDate   = "Invalid date_in_out. Use YYYY-MM-DD."
	TextInvalidValidation = "Invalid validation_date. Use YYYY-MM-DD."
	TextInvalidRangeDate  = "Invalid date range. Use YYYY-MM-DD."

	// Purchases and the NF-e inbox.
	TextInvalidKey       = "Invalid access key: use the 44 digits with a valid check digit."
	TextPurchaseExists   = "A purchase order for this access key already exists."
	TextKeyIssuer        = "Invalid access key: its issuer's CNPJ is not a valid CNPJ, so no supplier can be made of it."
	TextNFeInInbox       = "This NF-e is already in the inbox."
	TextNotNFe           = "The file is not a readable NF-e XML."
	TextForeignNFe       = "The NF-e was not issued to this unit's CNPJ."
	TextNFeNotAuthorized = "The NF-e has no authorization protocol: import the nfeProc the issuer received from SEFAZ (with its protNFe, cStat 100). Nothing was stored."
	TextNFeSignature     = "The NF-e's signature does not verify (details.reason): it changed after it was signed, or the issuer's certificate did not sign it. Nothing was stored."
	TextNFeNotConfirmed  = "The tax authority does not confirm this NF-e as authorized (details.code, details.reason): it does not know it, it was cancelled, or it is not the note it authorized. Nothing was stored."
	TextNFeConfirmDown   = "The tax authority did not answer when asked to confirm the NF-e. Try again: nothing was stored."
	TextNFeNotFound      = "NF-e not found in the unit's inbox."
	TextManifestReason   = "Operação não realizada needs a justification of 15 to 255 characters."
	TextManifestDone     = "The NF-e already has a conclusive manifestation."
	TextManifestTwice    = "Ciência da operação was already recorded."

	// CRM (spec, /insert_crm).
	textInvalidAccessOrUnit = "Invalid access_token or unit_token"
	TextCRMContact          = "id_contact not found, inactive, or not linked to unit_token"
	TextCRMRecordDate       = "Invalid record_date. Use YYYY-MM-DD."
	TextCRMNextContact      = "Invalid next_contact_datetime. Use ISO 8601, e.g. 2026-12-01T14:30:00-03:00."
	TextCRMNotFound         = "CRM record not found or not updated."

	// Contracts (spec, /insert_contract: failures as {success: false,
	// message, data: null}).
	textInternalServerError = "Internal server error"
	textContractFileType    = "Attachments must be PDF or image files."
	TextContractNotFound    = "Contract not found or not updated."
	TextRecurrenceType      = "Invalid recurrence_type. Use unique, monthly or yearly."
	TextContractStatus      = "Invalid status. Use draft, active, expired or cancelled."
	TextContractDates       = "Invalid validity dates. Use YYYY-MM-DD, the end not before the start."
	TextTemplateNotFound    = "Template not found."
	TextPreviewTarget       = "Provide id_contract or id_token_template."
	TextNoPixAutomatico     = "The contract's order does not charge on PIX automático acceptance (requested_payment_mode PIX_AUTOMATICO and generateChargeOnPixAutomaticAcceptance)."

	// Webhooks.
	TextWebhookURL      = "Invalid url. Use an http or https address."
	TextWebhookPrivate  = "Invalid url. Webhooks are posted to public addresses only, not to loopback, private, link-local or reserved ones."
	TextWebhookEvents   = "Unknown event. See the README for the event names."
	TextWebhookNotFound = "Webhook not found or not updated."

	// Test mode.
	TextClockRequest    = "Send now (RFC 3339), advance (an ISO 8601 duration such as P1M) or reset."
	TextClockBack       = "advance moves the clock forward only; use now to set it back."
	TextClockJump       = "The clock moves forward at most 5 years at a time: the jobs of every day it crosses run before it answers."
	TextAuthorityMode   = "Use mode authorize, reject (code 200 to 999 and reason), delay (delay_ms up to 60000), drop or offline."
	TextNotAtTestPSP    = "The charge is not a PIX charge at the domain's local PSP."
	TextPayerAccount    = "Give the payer's account whole (payer_ispb: 8 digits; payer_account: up to 20 characters; payer_agency: up to 4 digits) or not at all."
	TextRecDecision     = "Use decision approve or reject."
	TextPSPMode         = "Use mode online, slow (delay_ms 1 to 60000) or offline; drop_webhooks 0 to 100; refuse_refunds up to 140 characters."
	textInvoiceRejected = "The tax authority rejected the invoice: see details."
	TextSnapshot        = "Unknown or invalid snapshot: use 1 to 40 lower-case letters, digits and hyphens."
	TextInvalidLabel    = "Invalid label: use 1 to 30 lower-case letters, digits and hyphens."
	TextFaultRule       = "Invalid fault rule: route, probability 0 to 1, and a status 400 to 599 or a latency_ms up to 60000."

	// fincom's own texts, for failures the spec does not name.
	textInvalidJSON        = "Invalid JSON body."
	textBodyTooLarge       = "Request body too large."
	TextRouteNotFound      = "Route not found."
	TextMethodNotAllow     = "Method not allowed."
	TextInvalidBirth       = "Invalid birthDate. Use DD/MM/YYYY."
	TextInvalidState       = "Invalid state. Use the two-letter abbreviation."
	TextIENeedsState       = "A state registration is read by its state's rule: send the contact's state too."
	TextInvalidIE          = "Invalid state_registration: not an inscrição estadual of %s (its check digits differ), nor ISENTO."
	TextContributorNeedsIE = "icms_contributor 1 (contributor of ICMS) needs the contact's state_registration."
	TextExemptHasIE        = "icms_contributor 2 (exempt from state registration) does not go with a state_registration number: send ISENTO or 1."
	TextInvalidZip         = "Invalid zip_code. Use 8 digits."
	TextInvalidEmail       = "Invalid email."
	TextInvalidCityIBGE    = "Invalid city_ibge. Use a 7-digit IBGE municipality code."
	TextInvalidNCM         = "Invalid ncm. Use 8 digits."
	TextInvalidIBSCBS      = "Invalid IBS and CBS classification: details.field is the field at fault, details.message says why."
	TextInvalidCFOP        = "Invalid cfop. Use 4 digits starting with 1 to 7."
	TextInvalidUsage       = "Invalid usage_type. Use a SPED item type code (00 to 10, or 99)."
	TextNegativeValue      = "Invalid monetary_value. It must not be negative."
	TextInvalidTypeIO      = "Invalid type. Use in or out."
	TextInvalidProdType    = "Invalid type. Use product, service or all."
	TextInvalidDateBR      = "Invalid opening_balance_date. Use DD/MM/YYYY."
	textTooLong            = "A text field is too long."
	// One range for every amount and quantity (store.MaxMoney,
	// store.MaxQuantity); %s is the field as sent, dotted below its group.
	textMoneyRange     = "Invalid %s. Amounts must be between -9999999999.99 and 9999999999.99."
	textQuantityRange  = "Invalid %s. Quantities must be between -999999999.999 and 999999999.999."
	TextInvalidChoice  = "Invalid %s. Use %s."
	textInvalidQuery   = "Invalid %s. Use a whole number from 1."
	textPixKey         = "Invalid %s. A PIX key is a CPF or CNPJ with valid check digits, a phone as +55 with area code and number, an e-mail of at most 77 characters or a random key (UUID)."
	textControlChars   = "Invalid %s. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."
	TextNegativeBudget = "Invalid budget. It must not be negative."
	TextInvalidUnit    = "Invalid unit. Use up to 6 characters."

	// Finance.
	TextExpenseNotFound      = "Expense not found or not updated."
	TextIncomeNotFound       = "Income not found or not updated."
	textInvalidValue         = "Invalid value. It must be greater than zero."
	TextInvalidDueDate       = "Invalid due_date. Use YYYY-MM-DD."
	textInvalidPayDay        = "Invalid pay_day. Use YYYY-MM-DD."
	TextInvalidCompetence    = "Invalid competence_date. Use YYYY-MM-DD."
	TextPaidNeedsAccount     = "A paid entry needs id_token_bank_account."
	TextInvalidBarcode       = "Invalid barcode. Send a boleto's linha digitável or bar code with valid check digits."
	TextInvalidAccessKey     = "Invalid access_key. Send the 44 digits with a valid check digit."
	TextScreeningUnavailable = "Screening not found or already used."
	TextFileNotFound         = "File not found."
	TextDateRange            = "The interval between the dates must be at most 365 days."
	TextDateOrder            = "The start date must not be after the end date."
	TextInvalidFromDate      = "Invalid from_date. Use YYYY-MM-DD."
	TextInvalidToDate        = "Invalid to_date. Use YYYY-MM-DD."
	TextInvalidInitialDate   = "Invalid initial_date. Use YYYY-MM-DD."
	TextInvalidFinalDate     = "Invalid final_date. Use YYYY-MM-DD."
	TextProvideCNPJ          = "Provide cnpj."
	TextEntryNotFound        = "Entry not found."
	TextOneFile              = "Send exactly one file."
	TextScreeningNotFound    = "Screening not found or not pending."
	TextUnreadable           = "Could not read the document."
	TextNoOCR                = "Images need an OCR engine, and none is configured. Send the XML or a PDF with text."

	// Files.
	TextFileType     = "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."
	textFileTooLarge = "File too large. The limit is 10 MiB per file."
	textNoFiles      = "No files sent. Send them as multipart parts named files."
	TextFileName     = "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."

	// Multipart bodies.
	TextInvalidMultipart = "Invalid multipart body. Send a JSON part named metadata and the files as parts named files."
	TextTwoMetadata      = "Send one metadata part."
	textUploadsBusy      = "Too many uploads at once. Try again in a moment."
)

// Errors shared by many routes.
var (
	errInvalidJSON  = NewError(http.StatusBadRequest, textInvalidJSON)
	errBodyTooLarge = NewError(http.StatusRequestEntityTooLarge, textBodyTooLarge)
)

// The answers of the business packages' and the store's errors that mean
// the same wherever they come from (sharedErrors), and of the refusals
// both the API and the portal meet.
var (
	errAmountRange      = NewError(http.StatusBadRequest, fmt.Sprintf(textMoneyRange, "amount"))
	errContractFileType = NewError(http.StatusUnsupportedMediaType, textContractFileType)
	ErrInvalidValue     = NewError(http.StatusBadRequest, textInvalidValue)
	// ErrTooManyRequests: a client address past the public routes' rate.
	ErrTooManyRequests    = NewError(http.StatusTooManyRequests, TextTooManyRequests)
	ErrInvalidPayDay      = NewError(http.StatusBadRequest, textInvalidPayDay)
	ErrCancelReason       = NewError(http.StatusBadRequest, textCancelReason)
	errSealedKey          = NewError(http.StatusUnprocessableEntity, textSealedKey)
	ErrSalesOrderNotFound = NewError(http.StatusNotFound, textSalesOrderNotFound)
	ErrReconcileWhat      = NewError(http.StatusBadRequest, textReconcileWhat)
)

// sharedErrors are the answers every route gives to the errors of the
// business packages and the store that mean the same wherever they come
// from; a route's own errMap comes first (route.answer).
var sharedErrors = ErrMap{
	{store.ErrMoneyRange, errAmountRange},
	{certs.ErrSealed, errSealedKey},
}

// sharedError answers err as every route does (sharedErrors; a related
// record missing or inactive is the route's "invalid data"; the
// authority's refusals carry their details), or nil.
func sharedError(rt *Route, err error) error {
	for _, m := range sharedErrors {
		if errors.Is(err, m.Err) {
			return m.To
		}
	}
	var payer *billing.PayerError
	var invalid *invoicing.InvalidError
	var rejected *invoicing.RejectedError
	var cert *invoicing.CertificateError
	switch {
	case errors.As(err, &cert):
		return NewError(http.StatusUnprocessableEntity, fmt.Sprintf(textCertificate, cert.Err))
	case errors.As(err, &payer):
		return &Error{Status: http.StatusUnprocessableEntity, Text: TextPayerIncomplete, Details: payer}
	case errors.Is(err, store.ErrInvalidReference):
		return rt.Texts.Invalid
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusUnprocessableEntity, Text: textInvoiceInvalid, Details: map[string]any{"problems": invalid.Problems}}
	case errors.As(err, &rejected):
		return &Error{Status: http.StatusUnprocessableEntity, Text: textInvoiceRejected, Details: map[string]any{"code": rejected.Code, "reason": rejected.Reason}}
	}
	return nil
}

// MissingFieldsError is 400 "Missing required fields" with the spec's
// details: the fields, and the group of the first.
func MissingFieldsError(fields []string) *Error {
	group, _, _ := strings.Cut(fields[0], ".")
	return &Error{Status: http.StatusBadRequest, Text: textMissingRequiredFields,
		Details: missingDetails{MissingFields: fields, Group: group}}
}

// missingDetails is the spec's details of 400 "Missing required fields".
type missingDetails struct {
	MissingFields []string `json:"missing_fields"`
	Group         string   `json:"group"`
}

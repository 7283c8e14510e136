package server

import (
	"errors"
	"fmt"
	"net/http"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/store"
)

// Error is an API failure: the HTTP status and the exact text the spec gives
// for it, plus optional details (only /insert_sales_order shows them).
type Error struct {
	Status  int
	Text    string
	Details any
}

func (e *Error) Error() string { return e.Text }

func newError(status int, text string) *Error { return &Error{Status: status, Text: text} }

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
	textInvalidParameterFormat    = "Invalid parameter format"
	textNoFieldsToUpdate          = "No fields provided to update"
	textNoFieldsToUpdateDot       = "No fields provided to update."

	textSomethingWentWrong = "Something went wrong. Please try again later."
	textUnexpectedError    = "An unexpected error occurred. Please try again later."
	textServerError        = "Server error"
	textErroDesconhecido   = "Erro desconhecido"

	// Contacts (spec, /insert_contact and /update_contact).
	textInvalidCPF            = "Invalid CPF."
	textInvalidCNPJ           = "Invalid CNPJ."
	textFullNameRequired      = "Full name is required for natural persons."
	textSocialReasonRequired  = "Company name (social reason) is required for legal entities."
	textInvalidContactType    = "Invalid contact type."
	textRegisterUsed          = "Register already used in a contact of this unit."
	textContactNotFound       = "Contact not found or not updated."
	textBankAccountNotFound   = "Bank account not found or not updated"
	textCategoryNotFound      = "Category not found or not updated."
	textProjectNotFound       = "Project not found or not updated."
	textProductNotFound       = "Product or service not found or not updated."
	textProductCodeUsed       = "Product code already used in this unit."
	textInvalidProductCode    = "Invalid code. Use 1 to 60 characters."
	textCategoryExists        = "Category already exists for this type."
	textCategoryGroupNotFound = "Category group not found for this type."

	// Sales orders (spec, /insert_sales_order and /list_sales_orders).
	textMissingRequiredFields = "Missing required fields"
	textDatesRequired         = "Parâmetros de data são obrigatórios."
	textErroInserirPedido     = "Erro ao inserir pedido"
	textSalesOrderNotFound    = "Sales order not found or not updated."
	textInvalidNotifyEmail    = "Invalid %s. Use an e-mail address."

	// Charges and the payment portal.
	textOrderDisabled      = "The sales order is disabled; enable it before charging."
	textChargePaid         = "The charge is paid and cannot be cancelled."
	textNothingToCancel    = "There is no open charge to cancel."
	textNothingToResend    = "There is no open charge to send."
	textNoChargeEmail      = "The sales order has no notify_email_charge."
	textProviderRefused    = "The collection provider refused the charge."
	textRemittanceNotFound = "Remittance not found: no file of that sequence was written for this provider's agreement."
	textNothingToRemit     = "Nothing to remit: no boleto was issued or cancelled since the last remittance of this agreement."
	textUnknownBank        = "Unknown provider: use provider_a (Itaú), provider_b (Bradesco) or provider_c (Santander)."
	textNotReturn          = "Not a CNAB 240 return file of this bank: nothing was applied."
	textForeignReturn      = "This return file is another beneficiary's: its header's CNPJ, agency, account or agreement (details.fields) are not the unit's agreement's. Nothing was applied."
	textNotOFX             = "Not an OFX bank statement: nothing was imported."
	textOtherAccount       = "The file holds no statement of this bank account (details.accounts lists those it holds): nothing was imported."
	textNotReais           = "The statement is not in reais (CURDEF BRL): nothing was imported."
	textLineNotOpen        = "This statement line is already matched or dismissed."
	textAmountMismatch     = "The entry's amount or direction is not the statement line's."
	textLineNotFound       = "Statement line not found."
	textReconcileWhat      = "To match a statement line give id_token_entry or id_token_sales_order, one of them."
	textPayerIncomplete    = "The customer lacks what the bank needs to register a boleto: complete the contact (details.missing: its CPF or CNPJ in digits, address, city, state and zip_code), then try again."
	textNoAgreement        = "The unit has no agreement with this provider's bank: boletos it issued would be registered with no bank. The operator sets one with: fincom unit agreement DOMAIN UNIT_TOKEN --provider PROVIDER --agency AGENCY --account ACCOUNT-DIGIT --wallet WALLET."
	textProviderDown       = "The collection provider did not answer. Try again: the charge will not be issued twice."
	textUnknownProvider    = "Unknown collection provider."
	textNothingToPay       = "There is no open charge to pay."
	textOnlinePayment      = "Online payment is not available for this charge: pay the boleto or the PIX code."
	textPortalNotFound     = "Pedido não encontrado ou cobrança cancelada."
	textBoletoRegistering  = "Este boleto está sendo registrado no banco e ainda não pode ser pago. Tente de novo em algumas horas."
	textBoletoRejected     = "O banco recusou o registro deste boleto. Fale com o vendedor para receber outro."
	textTooManyRequests    = "Muitas requisições. Tente de novo em instantes."

	// Fiscal invoices.
	textInvoiceInvalid  = "The order's fiscal data is incomplete: fix every problem listed in details."
	textNoInvoice       = "The order has no authorized invoice."
	textCancelWindow    = "The invoice can no longer be cancelled: its cancellation window has closed."
	textCancelReason    = "The cancellation reason needs 15 to 255 characters."
	textNoNFEmail       = "The sales order has no notify_email_nf."
	textInvoiceNotFound = "Nota fiscal não encontrada."
	textAuthorityDown   = "The tax authority did not answer. Try again: the invoice will not be issued twice."
	textNoCertificate   = "The unit has no digital certificate to sign its invoices: install its A1 with fincom unit cert DOMAIN UNIT_TOKEN --pfx FILE."
	textNoSecretsKey    = "The server has no secrets key to open the unit's certificate: start it with --secrets-key-file."
	textSealedKey       = "The server's secrets key does not open the unit's certificate or CSC: start it with the --secrets-key-file that sealed them."
	textCertificate     = "The unit's digital certificate cannot sign: %s. Install a valid one with fincom unit cert."

	// Inventory (spec, /get_inventory_moviment and /get_inventory_reports).
	textDBQueryError      = "DB Query Error"
	textReportParams      = "Parâmetros 'year' e 'type_data' são obrigatórios."
	textInsufficientStock = "Insufficient stock: this change would take the product's stock below zero."
	textMovementNotFound  = "Inventory movement not found or not updated."
	textInvalidQuantity   = "Invalid quantity. It must be greater than zero, with up to 3 decimal places."
	textInvalidUnitary    = "Invalid unitary_value. It must not be negative."
	textInvalidMoveDate   = "Invalid date_in_out. Use YYYY-MM-DD."
	textInvalidValidation = "Invalid validation_date. Use YYYY-MM-DD."
	textInvalidRangeDate  = "Invalid date range. Use YYYY-MM-DD."

	// Purchases and the NF-e inbox.
	textInvalidKey       = "Invalid access key: use the 44 digits with a valid check digit."
	textPurchaseExists   = "A purchase order for this access key already exists."
	textKeyIssuer        = "Invalid access key: its issuer's CNPJ is not a valid CNPJ, so no supplier can be made of it."
	textNFeInInbox       = "This NF-e is already in the inbox."
	textNotNFe           = "The file is not a readable NF-e XML."
	textForeignNFe       = "The NF-e was not issued to this unit's CNPJ."
	textNFeNotAuthorized = "The NF-e has no authorization protocol: import the nfeProc the issuer received from SEFAZ (with its protNFe, cStat 100). Nothing was stored."
	textNFeSignature     = "The NF-e's signature does not verify (details.reason): it changed after it was signed, or the issuer's certificate did not sign it. Nothing was stored."
	textNFeNotFound      = "NF-e not found in the unit's inbox."
	textManifestReason   = "Operação não realizada needs a justification of 15 to 255 characters."
	textManifestDone     = "The NF-e already has a conclusive manifestation."
	textManifestTwice    = "Ciência da operação was already recorded."

	// CRM (spec, /insert_crm).
	textInvalidAccessOrUnit = "Invalid access_token or unit_token"
	textCRMContact          = "id_contact not found, inactive, or not linked to unit_token"
	textCRMRecordDate       = "Invalid record_date. Use YYYY-MM-DD."
	textCRMNextContact      = "Invalid next_contact_datetime. Use ISO 8601, e.g. 2026-12-01T14:30:00-03:00."
	textCRMNotFound         = "CRM record not found or not updated."

	// Contracts (spec, /insert_contract: failures as {success: false,
	// message, data: null}).
	textInternalServerError = "Internal server error"
	textContractFileType    = "Attachments must be PDF or image files."
	textContractNotFound    = "Contract not found or not updated."
	textRecurrenceType      = "Invalid recurrence_type. Use unique, monthly or yearly."
	textContractStatus      = "Invalid status. Use draft, active, expired or cancelled."
	textContractDates       = "Invalid validity dates. Use YYYY-MM-DD, the end not before the start."
	textTemplateNotFound    = "Template not found."
	textPreviewTarget       = "Provide id_contract or id_token_template."
	textNoPixAutomatico     = "The contract's order does not charge on PIX automático acceptance (requested_payment_mode PIX_AUTOMATICO and generateChargeOnPixAutomaticAcceptance)."

	// Webhooks.
	textWebhookURL      = "Invalid url. Use an http or https address."
	textWebhookPrivate  = "Invalid url. Webhooks are posted to public addresses only, not to loopback, private, link-local or reserved ones."
	textWebhookEvents   = "Unknown event. See the README for the event names."
	textWebhookNotFound = "Webhook not found or not updated."

	// Test mode.
	textClockRequest    = "Send now (RFC 3339), advance (an ISO 8601 duration such as P1M) or reset."
	textClockBack       = "advance moves the clock forward only; use now to set it back."
	textClockJump       = "The clock moves forward at most 5 years at a time: the jobs of every day it crosses run before it answers."
	textAuthorityMode   = "Use mode authorize, reject (code 200 to 999 and reason) or delay (delay_ms up to 60000)."
	textInvoiceRejected = "The tax authority rejected the invoice: see details."
	textSnapshot        = "Unknown or invalid snapshot: use 1 to 40 lower-case letters, digits and hyphens."
	textInvalidLabel    = "Invalid label: use 1 to 30 lower-case letters, digits and hyphens."
	textFaultRule       = "Invalid fault rule: route, probability 0 to 1, and a status 400 to 599 or a latency_ms up to 60000."

	// fincom's own texts, for failures the spec does not name.
	textInvalidJSON        = "Invalid JSON body."
	textBodyTooLarge       = "Request body too large."
	textRouteNotFound      = "Route not found."
	textMethodNotAllow     = "Method not allowed."
	textInvalidBirth       = "Invalid birthDate. Use DD/MM/YYYY."
	textInvalidState       = "Invalid state. Use the two-letter abbreviation."
	textIENeedsState       = "A state registration is read by its state's rule: send the contact's state too."
	textInvalidIE          = "Invalid state_registration: not an inscrição estadual of %s (its check digits differ), nor ISENTO."
	textContributorNeedsIE = "icms_contributor 1 (contributor of ICMS) needs the contact's state_registration."
	textExemptHasIE        = "icms_contributor 2 (exempt from state registration) does not go with a state_registration number: send ISENTO or 1."
	textInvalidZip         = "Invalid zip_code. Use 8 digits."
	textInvalidEmail       = "Invalid email."
	textInvalidCityIBGE    = "Invalid city_ibge. Use a 7-digit IBGE municipality code."
	textInvalidNCM         = "Invalid ncm. Use 8 digits."
	textInvalidCFOP        = "Invalid cfop. Use 4 digits starting with 1 to 7."
	textInvalidUsage       = "Invalid usage_type. Use a SPED item type code (00 to 10, or 99)."
	textNegativeValue      = "Invalid monetary_value. It must not be negative."
	textInvalidTypeIO      = "Invalid type. Use in or out."
	textInvalidProdType    = "Invalid type. Use product, service or all."
	textInvalidDateBR      = "Invalid opening_balance_date. Use DD/MM/YYYY."
	textTooLong            = "A text field is too long."
	// One range for every amount and quantity (store.MaxMoney,
	// store.MaxQuantity); %s is the field as sent, dotted below its group.
	textMoneyRange     = "Invalid %s. Amounts must be between -9999999999.99 and 9999999999.99."
	textQuantityRange  = "Invalid %s. Quantities must be between -999999999.999 and 999999999.999."
	textInvalidChoice  = "Invalid %s. Use %s."
	textInvalidQuery   = "Invalid %s. Use a whole number from 1."
	textPixKey         = "Invalid %s. A PIX key is a CPF or CNPJ with valid check digits, a phone as +55 with area code and number, an e-mail of at most 77 characters or a random key (UUID)."
	textControlChars   = "Invalid %s. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."
	textNegativeBudget = "Invalid budget. It must not be negative."
	textInvalidUnit    = "Invalid unit. Use up to 6 characters."

	// Finance.
	textExpenseNotFound      = "Expense not found or not updated."
	textIncomeNotFound       = "Income not found or not updated."
	textInvalidValue         = "Invalid value. It must be greater than zero."
	textInvalidDueDate       = "Invalid due_date. Use YYYY-MM-DD."
	textInvalidPayDay        = "Invalid pay_day. Use YYYY-MM-DD."
	textInvalidCompetence    = "Invalid competence_date. Use YYYY-MM-DD."
	textPaidNeedsAccount     = "A paid entry needs id_token_bank_account."
	textInvalidBarcode       = "Invalid barcode. Send a boleto's linha digitável or bar code with valid check digits."
	textInvalidAccessKey     = "Invalid access_key. Send the 44 digits with a valid check digit."
	textScreeningUnavailable = "Screening not found or already used."
	textFileNotFound         = "File not found."
	textDateRange            = "The interval between the dates must be at most 365 days."
	textDateOrder            = "The start date must not be after the end date."
	textInvalidFromDate      = "Invalid from_date. Use YYYY-MM-DD."
	textInvalidToDate        = "Invalid to_date. Use YYYY-MM-DD."
	textInvalidInitialDate   = "Invalid initial_date. Use YYYY-MM-DD."
	textInvalidFinalDate     = "Invalid final_date. Use YYYY-MM-DD."
	textProvideCNPJ          = "Provide cnpj."
	textEntryNotFound        = "Entry not found."
	textOneFile              = "Send exactly one file."
	textScreeningNotFound    = "Screening not found or not pending."
	textUnreadable           = "Could not read the document."
	textNoOCR                = "Images need an OCR engine, and none is configured. Send the XML or a PDF with text."

	// Files.
	textFileType     = "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."
	textFileTooLarge = "File too large. The limit is 10 MiB per file."
	textNoFiles      = "No files sent. Send them as multipart parts named files."
	textFileName     = "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."

	// Multipart bodies.
	textInvalidMultipart = "Invalid multipart body. Send a JSON part named metadata and the files as parts named files."
	textTwoMetadata      = "Send one metadata part."
	textUploadsBusy      = "Too many uploads at once. Try again in a moment."
)

// Errors shared by many routes.
var (
	errInvalidJSON  = newError(http.StatusBadRequest, textInvalidJSON)
	errBodyTooLarge = newError(http.StatusRequestEntityTooLarge, textBodyTooLarge)
)

// sharedErrors are the answers every route gives to the errors of the
// business packages and the store that mean the same wherever they come
// from; a route's own errMap comes first (route.answer).
var sharedErrors = errMap{
	{store.ErrMoneyRange, errAmountRange},
	{store.ErrOrderDisabled, errOrderDisabled},
	{store.ErrNothingToPay, errNothingToPay},
	{store.ErrAlreadyPaid, errChargePaid},
	{store.ErrNothingToCancel, errNothingToCancel},
	{store.ErrNoChargeToResend, errNothingToResend},
	{store.ErrNoInvoice, errNoInvoice},
	{store.ErrCancelWindow, errCancelWindow},
	{store.ErrInsufficientStock, errInsufficientStock},
	{billing.ErrUnknownProvider, errUnknownProvider},
	{billing.ErrProviderRefused, errProviderRefused},
	{store.ErrNoAgreement, errNoAgreement},
	{store.ErrNothingToRemit, errNothingToRemit},
	{store.ErrLineNotOpen, errLineNotOpen},
	{store.ErrAmountMismatch, errAmountMismatch},
	{billing.ErrUnknownBank, errUnknownBank},
	{billing.ErrProviderDown, errProviderDown},
	{billing.ErrNoChargeEmail, errNoChargeEmail},
	{invoicing.ErrAuthorityDown, errAuthorityDown},
	{invoicing.ErrNoNFEmail, errNoNFEmail},
	{invoicing.ErrNoCertificate, errNoCertificate},
	{invoicing.ErrNoSecretsKey, errNoSecretsKey},
	{certs.ErrSealed, errSealedKey},
}

// sharedError answers err as every route does (sharedErrors; a related
// record missing or inactive is the route's "invalid data"; the
// authority's refusals carry their details), or nil.
func sharedError(rt *route, err error) error {
	for _, m := range sharedErrors {
		if errors.Is(err, m.err) {
			return m.to
		}
	}
	var payer *store.PayerError
	var invalid *invoicing.InvalidError
	var rejected *invoicing.RejectedError
	var cert *invoicing.CertificateError
	switch {
	case errors.As(err, &cert):
		return newError(http.StatusUnprocessableEntity, fmt.Sprintf(textCertificate, cert.Err))
	case errors.As(err, &payer):
		return &Error{Status: http.StatusUnprocessableEntity, Text: textPayerIncomplete, Details: payer}
	case errors.Is(err, store.ErrInvalidReference):
		return rt.texts.invalid
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusUnprocessableEntity, Text: textInvoiceInvalid, Details: map[string]any{"problems": invalid.Problems}}
	case errors.As(err, &rejected):
		return &Error{Status: http.StatusUnprocessableEntity, Text: textInvoiceRejected, Details: map[string]any{"code": rejected.Code, "reason": rejected.Reason}}
	}
	return nil
}

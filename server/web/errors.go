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
	TextInvalidCPF   = "Invalid CPF."
	TextInvalidCNPJ  = "Invalid CNPJ."
	TextRegisterUsed = "Register already used in a contact of this unit."

	// Sales orders (spec, /insert_sales_order and /list_sales_orders).
	textMissingRequiredFields = "Missing required fields"
	TextDatesRequired         = "Parâmetros de data são obrigatórios."
	textErroInserirPedido     = "Erro ao inserir pedido"
	textSalesOrderNotFound    = "Sales order not found or not updated."

	// Charges and the payment portal.
	TextNotReturn         = "Not a CNAB 240 return file of this bank: nothing was applied."
	TextForeignReturn     = "This return file is another beneficiary's: its header's CNPJ, agency, account or agreement (details.fields) are not the unit's agreement's. Nothing was applied."
	TextNotOFX            = "Not an OFX bank statement: nothing was imported."
	TextOtherAccount      = "The file holds no statement of this bank account (details.accounts lists those it holds): nothing was imported."
	TextNotReais          = "The statement is not in reais (CURDEF BRL): nothing was imported."
	TextLineNotFound      = "Statement line not found."
	textReconcileWhat     = "To match a statement line give id_token_entry or id_token_sales_order, one of them."
	TextOnlinePayment     = "Online payment is not available for this charge: pay the boleto or the PIX code."
	TextBoletoRegistering = "Este boleto está sendo registrado no banco e ainda não pode ser pago. Tente de novo em algumas horas."
	TextBoletoRejected    = "O banco recusou o registro deste boleto. Fale com o vendedor para receber outro."

	// Fiscal invoices.
	textInvoiceInvalid = "The order's fiscal data is incomplete: fix every problem listed in details."
	textCancelReason   = "The cancellation reason needs 15 to 255 characters."
	TextNoDANFE        = "Esta nota fiscal não foi autorizada pela SEFAZ: ela não tem DANFE."
	textSealedKey      = "The server's secrets key does not open the unit's certificate or CSC: start it with the --secrets-key-file that sealed them."
	textCertificate    = "The unit's digital certificate cannot sign: %s. Install a valid one with fincom unit cert."

	// Inventory (spec, /get_inventory_moviment and /get_inventory_reports).
	textDBQueryError     = "DB Query Error"
	TextReportParams     = "Parâmetros 'year' e 'type_data' são obrigatórios."
	TextInvalidRangeDate = "Invalid date range. Use YYYY-MM-DD."

	// Purchases and the NF-e inbox.
	TextNotNFe = "The file is not a readable NF-e XML."

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
	TextRecurrenceType      = "Invalid recurrence_type. Use unique, monthly or yearly."
	TextContractStatus      = "Invalid status. Use draft, active, expired or cancelled."
	TextContractDates       = "Invalid validity dates. Use YYYY-MM-DD, the end not before the start."
	TextPreviewTarget       = "Provide id_contract or id_token_template."
	TextNoPixAutomatico     = "The contract's order does not charge on PIX automático acceptance (requested_payment_mode PIX_AUTOMATICO and generateChargeOnPixAutomaticAcceptance)."

	// Webhooks.
	// Test mode.
	TextClockBack       = "advance moves the clock forward only; use now to set it back."
	TextClockJump       = "The clock moves forward at most 5 years at a time: the jobs of every day it crosses run before it answers."
	TextRecDecision     = "Use decision approve or reject."
	TextPSPMode         = "Use mode online, slow (delay_ms 1 to 60000) or offline; drop_webhooks 0 to 100; refuse_refunds up to 140 characters."
	textInvoiceRejected = "The tax authority rejected the invoice: see details."
	TextSnapshot        = "Unknown or invalid snapshot: use 1 to 40 lower-case letters, digits and hyphens."
	TextFaultRule       = "Invalid fault rule: route, probability 0 to 1, and a status 400 to 599 or a latency_ms up to 60000."

	// fincom's own texts, for failures the spec does not name.
	textInvalidJSON  = "Invalid JSON body."
	textBodyTooLarge = "Request body too large."
	TextInvalidIE    = "Invalid state_registration: not an inscrição estadual of %s (its check digits differ), nor ISENTO."
	TextInvalidZip   = "Invalid zip_code. Use 8 digits."
	TextInvalidNCM   = "Invalid ncm. Use 8 digits."
	textTooLong      = "A text field is too long."

	// One range for every amount and quantity (store.MaxMoney,
	// store.MaxQuantity); %s is the field as sent, dotted below its group.
	textMoneyRange    = "Invalid %s. Amounts must be between -9999999999.99 and 9999999999.99."
	textQuantityRange = "Invalid %s. Quantities must be between -999999999.999 and 999999999.999."
	TextInvalidChoice = "Invalid %s. Use %s."
	textInvalidQuery  = "Invalid %s. Use a whole number from 1."
	textPixKey        = "Invalid %s. A PIX key is a CPF or CNPJ with valid check digits, a phone as +55 with area code and number, an e-mail of at most 77 characters or a random key (UUID)."
	textControlChars  = "Invalid %s. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."

	// Finance.
	textInvalidValue  = "Invalid value. It must be greater than zero."
	textInvalidPayDay = "Invalid pay_day. Use YYYY-MM-DD."
	TextFileNotFound  = "File not found."
	TextDateRange     = "The interval between the dates must be at most 365 days."
	TextDateOrder     = "The start date must not be after the end date."
	TextProvideCNPJ   = "Provide cnpj."
	TextOneFile       = "Send exactly one file."
	TextUnreadable    = "Could not read the document."
	TextNoOCR         = "Images need an OCR engine, and none is configured. Send the XML or a PDF with text."

	// Files.
	TextFileType     = "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."
	textFileTooLarge = "File too large. The limit is 10 MiB per file."
	textNoFiles      = "No files sent. Send them as multipart parts named files."
	TextFileName     = "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."

	// Multipart bodies.
	textUploadsBusy = "Too many uploads at once. Try again in a moment."
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
	ErrTooManyRequests    = NewError(http.StatusTooManyRequests, "Muitas requisições. Tente de novo em instantes.")
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
		return &Error{Status: http.StatusUnprocessableEntity, Text: "The customer lacks what the bank needs to register a boleto: complete the contact (details.missing: its CPF or CNPJ in digits, address, city, state and zip_code), then try again.", Details: payer}
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

package web

import (
	"errors"
	"fmt"
	"net/http"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/store"
)

// Error is an API failure: its code (or the HTTP status the web layer
// named) and the exact text the spec gives for it, plus optional details
// (problem.Problem: the business packages declare theirs beside their
// rules).
type Error = problem.Problem

// NewError is a failure of the HTTP layer itself with its status and text
// (a body too large, a missing token): the business packages' refusals
// carry a domain code instead (problem.New).
func NewError(status int, text string) *Error {
	return &problem.Problem{HTTPStatus: status, Text: text}
}

// statuses are the HTTP statuses of the domain's codes.
var statuses = map[problem.Code]int{
	problem.Invalid: http.StatusBadRequest, problem.Unprocessable: http.StatusUnprocessableEntity, problem.NotFound: http.StatusNotFound,
	problem.Conflict: http.StatusConflict, problem.Forbidden: http.StatusForbidden, problem.Unavailable: http.StatusBadGateway,
}

// StatusOf is the HTTP status a refusal is answered with: the one the web
// layer named, else its code's (500 for a problem of neither, which is a
// fault of fincom's).
func StatusOf(p *problem.Problem) int {
	if p.HTTPStatus != 0 {
		return p.HTTPStatus
	}
	if s, ok := statuses[p.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// The texts several routes share, or the shared answers below give, each
// written once. A text one route answers is written where its error is
// declared, beside its resource's handlers.
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

	// Sales orders (spec, /insert_sales_order and /list_sales_orders).
	textErroInserirPedido  = "Erro ao inserir pedido"
	textSalesOrderNotFound = "Sales order not found or not updated."

	// Charges and the payment portal.
	textReconcileWhat     = "To match a statement line give id_token_entry or id_token_sales_order, one of them."
	TextBoletoRegistering = "Este boleto está sendo registrado no banco e ainda não pode ser pago. Tente de novo em algumas horas."
	TextBoletoRejected    = "O banco recusou o registro deste boleto. Fale com o vendedor para receber outro."

	// Fiscal invoices.
	textInvoiceInvalid = "The order's fiscal data is incomplete: fix every problem listed in details."
	textCancelReason   = "The cancellation reason needs 15 to 255 characters."
	textSealedKey      = "The server's secrets key does not open the unit's certificate or CSC: start it with the --secrets-key-file that sealed them."
	textCertificate    = "The unit's digital certificate cannot sign (details.reason): install a valid one with fincom unit cert."

	// Inventory (spec, /get_inventory_moviment and /get_inventory_reports).
	textDBQueryError     = "DB Query Error"
	TextInvalidRangeDate = "Invalid date range. Use YYYY-MM-DD."

	// CRM (spec, /insert_crm).
	textInvalidAccessOrUnit = "Invalid access_token or unit_token"

	// Contracts (spec, /insert_contract: failures as {success: false,
	// message, data: null}).
	textInternalServerError = "Internal server error"
	textContractFileType    = "Attachments must be PDF or image files."

	// Fiscal invoices, answered with the authority's details.
	textInvoiceRejected = "The tax authority rejected the invoice: see details."

	// fincom's own texts, for failures the spec does not name.
	textRoleMayNot   = "The access token's role may not change this on the unit: ask an owner of the domain."
	textInvalidJSON  = "Invalid JSON body."
	textBodyTooLarge = "Request body too large."
	textTooLong      = "A text field is too long."

	// One range for every amount and quantity (store.MaxMoney,
	// store.MaxQuantity); %s is the field as sent, dotted below its group.
	textMoneyRange    = "Invalid %s. Amounts must be between -9999999999.99 and 9999999999.99."
	textQuantityRange = "Invalid %s. Quantities must be between -999999999.999 and 999999999.999."
	TextInvalidChoice = "Invalid %s. Use %s."
	textInvalidQuery  = "Invalid %s. Use a whole number from 1."
	textIntRange      = "Invalid %s. Use a whole number from %d to %d."
	textPixKey        = "Invalid %s. A PIX key is a CPF or CNPJ with valid check digits, a phone as +55 with area code and number, an e-mail of at most 77 characters or a random key (UUID)."
	textControlChars  = "Invalid %s. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."

	// Finance.
	textInvalidValue  = "Invalid value. It must be greater than zero."
	textInvalidPayDay = "Invalid pay_day. Use YYYY-MM-DD."

	// Files.
	textFileTooLarge = "File too large. The limit is 10 MiB per file."
	textNoFiles      = "No files sent. Send them as multipart parts named files."

	// Multipart bodies.
	textUploadsBusy = "Too many uploads at once. Try again in a moment."
)

// Refusals of several routes whose answers carry details (With): named so
// that the routes that meet them list them in the document.
var (
	ErrInvoiceInvalid  = NewError(http.StatusUnprocessableEntity, textInvoiceInvalid)
	ErrPayerIncomplete = NewError(http.StatusUnprocessableEntity, "The customer lacks what the bank needs to register a boleto: complete the contact (details.missing: its CPF or CNPJ in digits, address, city, state and zip_code), then try again.")
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
	ErrAmountRange      = NewError(http.StatusBadRequest, fmt.Sprintf(textMoneyRange, "amount"))
	errContractFileType = NewError(http.StatusUnsupportedMediaType, textContractFileType)
	ErrInvalidValue     = NewError(http.StatusBadRequest, textInvalidValue)

	// ErrTooManyRequests: a client address past the public routes' rate.
	ErrTooManyRequests    = NewError(http.StatusTooManyRequests, "Muitas requisições. Tente de novo em instantes.")
	ErrInvalidPayDay      = NewError(http.StatusBadRequest, textInvalidPayDay)
	ErrCancelReason       = NewError(http.StatusBadRequest, textCancelReason)
	ErrSealedKey          = NewError(http.StatusUnprocessableEntity, textSealedKey)
	ErrCertificate        = NewError(http.StatusUnprocessableEntity, textCertificate)
	ErrInvoiceRejected    = NewError(http.StatusUnprocessableEntity, textInvoiceRejected)
	ErrSalesOrderNotFound = NewError(http.StatusNotFound, textSalesOrderNotFound)
	ErrReconcileWhat      = NewError(http.StatusBadRequest, textReconcileWhat)
)

// sharedErrors are the answers every route gives to the errors of the
// business packages and the store that mean the same wherever they come
// from; a route's own errMap comes first (route.answer).
var sharedErrors = ErrMap{
	{store.ErrMoneyRange, ErrAmountRange},
	{certs.ErrSealed, ErrSealedKey},
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
		return ErrCertificate.With(map[string]string{"reason": cert.Err.Error()})
	case errors.As(err, &payer):
		return ErrPayerIncomplete.With(payer)
	case errors.Is(err, store.ErrInvalidReference):
		return rt.Texts.Invalid
	case errors.As(err, &invalid):
		return ErrInvoiceInvalid.With(map[string]any{"problems": invalid.Problems})
	case errors.As(err, &rejected):
		return ErrInvoiceRejected.With(map[string]any{"code": rejected.Code, "reason": rejected.Reason})
	}
	return nil
}

package web

import (
	"net/http"

	"fincom/server/problem"
	"fincom/store"
)

// Texts are a route's answers to the failures every route can meet.
type Texts struct {
	Missing  *Error // absent tokens or required fields
	Invalid  *Error // unknown or revoked access token
	Unit     *Error // unit token not of the access token's domain
	Format   *Error // a field of the wrong JSON type
	Internal string // the 500 text; the cause is only logged
	// details: the missing text carries the spec's details, which
	// fields are missing (problem.MissingFields).
	details bool
}

// The texts the spec gives per route (see Endpoints and Authentication 8).
// Routes listed without shapes use textsDefault, the texts of their shaped
// sibling /insert_bank_account.
var (
	TextsDefault = Texts{
		Missing:  NewError(http.StatusBadRequest, textMissingParameters),
		Invalid:  NewError(http.StatusForbidden, textInvalidData),
		Unit:     NewError(http.StatusNotFound, textUnitNotFound),
		Format:   NewError(http.StatusBadRequest, TextInvalidParameterFormat),
		Internal: TextSomethingWentWrong,
	}
	// Routes whose error table has no 404: an unknown unit is invalid data.
	TextsNo404 = Texts{
		Missing:  TextsDefault.Missing,
		Invalid:  TextsDefault.Invalid,
		Unit:     TextsDefault.Invalid,
		Format:   TextsDefault.Format,
		Internal: TextSomethingWentWrong,
	}
	// /insert_contact, /update_contact and their enable/disable siblings.
	TextsContact = Texts{
		Missing:  NewError(http.StatusBadRequest, textMissingRequiredDot),
		Invalid:  NewError(http.StatusForbidden, textInvalidAuthenticationData),
		Unit:     NewError(http.StatusNotFound, textUnitNotFoundDot),
		Format:   TextsDefault.Format,
		Internal: textUnexpectedError,
	}
	// /get_products_and_services: 401 "Invalid token", 500 "Server error".
	TextsProducts = Texts{
		Missing:  TextsDefault.Missing,
		Invalid:  NewError(http.StatusUnauthorized, textInvalidToken),
		Unit:     NewError(http.StatusUnauthorized, textInvalidToken),
		Format:   TextsDefault.Format,
		Internal: textServerError,
	}
	// /list_stock_items_by_unit: only 403 "Invalid data" and 500 "Erro
	// desconhecido" are shown, so missing tokens are invalid data too.
	TextsStock = Texts{
		Missing:  TextsDefault.Invalid,
		Invalid:  TextsDefault.Invalid,
		Unit:     TextsDefault.Invalid,
		Format:   TextsDefault.Format,
		Internal: textErroDesconhecido,
	}
	// /insert_sales_order: 400 "Missing required fields" (with details
	// when fields are missing), 403 "Invalid data", 422 "Invalid parameter
	// format", 500 "Erro ao inserir pedido".
	TextsInsertSalesOrder = Texts{
		Missing:  NewError(http.StatusBadRequest, problem.TextMissingRequiredFields),
		Invalid:  TextsDefault.Invalid,
		Unit:     TextsDefault.Invalid,
		Format:   NewError(http.StatusUnprocessableEntity, TextInvalidParameterFormat),
		Internal: textErroInserirPedido,
		details:  true,
	}
	// /list_sales_orders: 403 "Invalid data", 500 "Erro desconhecido".
	TextsListSalesOrders = Texts{
		Missing:  TextsDefault.Invalid,
		Invalid:  TextsDefault.Invalid,
		Unit:     TextsDefault.Invalid,
		Format:   TextsDefault.Format,
		Internal: textErroDesconhecido,
	}
	// Inventory: 400 "Missing parameters", 403 "Invalid data", 404 "Unit
	// not found", 500 "DB Query Error".
	TextsInventory = Texts{
		Missing:  TextsDefault.Missing,
		Invalid:  TextsDefault.Invalid,
		Unit:     TextsDefault.Unit,
		Format:   TextsDefault.Format,
		Internal: textDBQueryError,
	}
	// /insert_crm and its siblings: 400 "Missing required parameters.",
	// 403 "Invalid access_token or unit_token", 500 "An unexpected error...".
	TextsCRM = Texts{
		Missing:  NewError(http.StatusBadRequest, textMissingRequiredDot),
		Invalid:  NewError(http.StatusForbidden, textInvalidAccessOrUnit),
		Unit:     NewError(http.StatusForbidden, textInvalidAccessOrUnit),
		Format:   TextsDefault.Format,
		Internal: textUnexpectedError,
	}
	// /insert_contract and /update_contract: 400 "Missing parameters", 403
	// "Invalid data", 500 "Internal server error", all with data null.
	TextsContract = Texts{
		Missing:  TextsDefault.Missing,
		Invalid:  TextsDefault.Invalid,
		Unit:     TextsDefault.Invalid,
		Format:   TextsDefault.Format,
		Internal: textInternalServerError,
	}
	// /update_bank_account: "Missing required parameters" without a dot.
	TextsUpdateBankAccount = Texts{
		Missing:  NewError(http.StatusBadRequest, textMissingRequiredParameters),
		Invalid:  TextsDefault.Invalid,
		Unit:     TextsDefault.Unit,
		Format:   TextsDefault.Format,
		Internal: TextSomethingWentWrong,
	}
)

// Tags of the OpenAPI document, by resource.
const (
	TagFinance   = "Finance"
	TagDocuments = "Documents"
	TagSales     = "Sales"
	TagPortal    = "Portal"
	TagPurchases = "Purchases"
	TagContracts = "Contracts"
	TagWebhooks  = "Webhooks"
	TagCRM       = "CRM"
	TagInventory = "Inventory"
	TagRegisters = "Registers"
	TagTestMode  = "Test mode"
)

// Done is the answer {success, message, token} of inserts and changes.
var Done = TokenAnswer{}

// Nullable documents a value that may be null (data: null).
type Nullable struct{ V any }

// EitherOf documents data that takes one of several shapes.
type EitherOf []any

// OrderErrs are the answers of the routes that name a sales order.
var OrderErrs = ErrMap{{store.ErrNotFound, ErrSalesOrderNotFound}}

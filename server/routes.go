package server

import (
	"net/http"

	"fincom/store"
)

// handler is a route's logic: decode, validate, one store call, a value or
// an error.
type handler func(r *request) (any, error)

// route is one entry of the route table: what differs between routes is
// declared here, not re-implemented in handlers.
type route struct {
	method   string
	path     string
	handler  handler
	auth     authKind
	envelope envelope
	texts    texts
}

// texts are a route's answers to the failures every route can meet.
type texts struct {
	missing  *Error // absent tokens or required fields
	invalid  *Error // unknown or revoked access token
	unit     *Error // unit token not of the access token's domain
	format   *Error // a field of the wrong JSON type
	internal string // the 500 text; the cause is only logged
}

// The texts the spec gives per route (see Endpoints and Authentication 8).
// Routes listed without shapes use textsDefault, the texts of their shaped
// sibling /insert_bank_account.
var (
	textsDefault = texts{
		missing:  newError(http.StatusBadRequest, textMissingParameters),
		invalid:  newError(http.StatusForbidden, textInvalidData),
		unit:     newError(http.StatusNotFound, textUnitNotFound),
		format:   newError(http.StatusBadRequest, textInvalidParameterFormat),
		internal: textSomethingWentWrong,
	}
	// Routes whose error table has no 404: an unknown unit is invalid data.
	textsNo404 = texts{
		missing:  textsDefault.missing,
		invalid:  textsDefault.invalid,
		unit:     textsDefault.invalid,
		format:   textsDefault.format,
		internal: textSomethingWentWrong,
	}
	// /insert_contact, /update_contact and their enable/disable siblings.
	textsContact = texts{
		missing:  newError(http.StatusBadRequest, textMissingRequiredDot),
		invalid:  newError(http.StatusForbidden, textInvalidAuthenticationData),
		unit:     newError(http.StatusNotFound, textUnitNotFoundDot),
		format:   textsDefault.format,
		internal: textUnexpectedError,
	}
	// /get_products_and_services: 401 "Invalid token", 500 "Server error".
	textsProducts = texts{
		missing:  textsDefault.missing,
		invalid:  newError(http.StatusUnauthorized, textInvalidToken),
		unit:     newError(http.StatusUnauthorized, textInvalidToken),
		format:   textsDefault.format,
		internal: textServerError,
	}
	// /list_stock_items_by_unit: only 403 "Invalid data" and 500 "Erro
	// desconhecido" are shown, so missing tokens are invalid data too.
	textsStock = texts{
		missing:  textsDefault.invalid,
		invalid:  textsDefault.invalid,
		unit:     textsDefault.invalid,
		format:   textsDefault.format,
		internal: textErroDesconhecido,
	}
	// /insert_sales_order: 400 "Missing required fields" (with details
	// when fields are missing), 403 "Invalid data", 422 "Invalid parameter
	// format", 500 "Erro ao inserir pedido".
	textsInsertSalesOrder = texts{
		missing:  newError(http.StatusBadRequest, textMissingRequiredFields),
		invalid:  textsDefault.invalid,
		unit:     textsDefault.invalid,
		format:   newError(http.StatusUnprocessableEntity, textInvalidParameterFormat),
		internal: textErroInserirPedido,
	}
	// /list_sales_orders: 403 "Invalid data", 500 "Erro desconhecido".
	textsListSalesOrders = texts{
		missing:  textsDefault.invalid,
		invalid:  textsDefault.invalid,
		unit:     textsDefault.invalid,
		format:   textsDefault.format,
		internal: textErroDesconhecido,
	}
	// Inventory: 400 "Missing parameters", 403 "Invalid data", 404 "Unit
	// not found", 500 "DB Query Error".
	textsInventory = texts{
		missing:  textsDefault.missing,
		invalid:  textsDefault.invalid,
		unit:     textsDefault.unit,
		format:   textsDefault.format,
		internal: textDBQueryError,
	}
	// /insert_crm and its siblings: 400 "Missing required parameters.",
	// 403 "Invalid access_token or unit_token", 500 "An unexpected error...".
	textsCRM = texts{
		missing:  newError(http.StatusBadRequest, textMissingRequiredDot),
		invalid:  newError(http.StatusForbidden, textInvalidAccessOrUnit),
		unit:     newError(http.StatusForbidden, textInvalidAccessOrUnit),
		format:   textsDefault.format,
		internal: textUnexpectedError,
	}
	// /insert_contract and /update_contract: 400 "Missing parameters", 403
	// "Invalid data", 500 "Internal server error", all with data null.
	textsContract = texts{
		missing:  textsDefault.missing,
		invalid:  textsDefault.invalid,
		unit:     textsDefault.invalid,
		format:   textsDefault.format,
		internal: textInternalServerError,
	}
	// /update_bank_account: "Missing required parameters" without a dot.
	textsUpdateBankAccount = texts{
		missing:  newError(http.StatusBadRequest, textMissingRequiredParameters),
		invalid:  textsDefault.invalid,
		unit:     textsDefault.unit,
		format:   textsDefault.format,
		internal: textSomethingWentWrong,
	}
)

// routeTable lists every route, in the spec's order.
func (s *Server) routeTable() []route {
	post := func(path string, h handler, t texts) route {
		return route{method: http.MethodPost, path: path, handler: h, auth: authUnit, envelope: envDirect, texts: t}
	}
	with := func(r route, auth authKind) route {
		r.auth = auth
		return r
	}
	return []route{
		// Transactions (POST / is the legacy name, spec Versioning) and cash
		// flow.
		with(post("/transactions", s.transactions, textsNo404), authUnits),
		with(post("/", s.transactions, textsNo404), authUnits),
		post("/cash_flow", s.cashFlow, textsNo404),
		with(post("/get_category_median", s.getCategoryMedian, textsNo404), authTecOrAccess),

		// Expenses and income, their files, their status.
		post("/insert_expense", s.insertEntry(expense), textsDefault),
		post("/update_expense", s.updateEntry(expense), textsDefault),
		post("/list_expense_files", s.listEntryFiles(expense), textsDefault),
		post("/get_expense_file", s.getEntryFile(expense), textsDefault),
		post("/insert_expense_files", s.insertEntryFiles(expense), textsDefault),
		post("/delete_expense_files", s.deleteEntryFiles(expense), textsDefault),
		post("/insert_income", s.insertEntry(income), textsDefault),
		post("/update_income", s.updateEntry(income), textsDefault),
		post("/list_income_files", s.listEntryFiles(income), textsDefault),
		post("/get_income_file", s.getEntryFile(income), textsDefault),
		post("/insert_income_files", s.insertEntryFiles(income), textsDefault),
		post("/delete_income_files", s.deleteEntryFiles(income), textsDefault),
		post("/get_status", s.getStatus, textsDefault),

		// Reading documents, and the inbox of received ones.
		post("/get_ocr_data_by_file", s.getOCRDataByFile, textsDefault),
		post("/insert_screening", s.insertScreening, textsDefault),
		post("/list_screenings", s.listScreenings, textsDefault),
		post("/discard_screening", s.discardScreening, textsDefault),

		// Sales orders.
		post("/list_sales_orders", s.listSalesOrders, textsListSalesOrders),
		post("/insert_sales_order", s.insertSalesOrder, textsInsertSalesOrder),
		post("/get_sales_order_by_id", s.getSalesOrderByID, textsDefault),
		post("/enable_sales_order", setActive((*store.DB).SetSalesOrderActive, true, errSalesOrderNotFound, "Sales order"), textsDefault),
		post("/disable_sales_order", setActive((*store.DB).SetSalesOrderActive, false, errSalesOrderNotFound, "Sales order"), textsDefault),

		// Charges.
		post("/generate_charge", s.generateCharge, textsDefault),
		post("/cancel_charge", s.cancelCharge, textsDefault),
		post("/resend_charge", s.resendCharge, textsDefault),

		// Fiscal invoices.
		post("/generate_nf", s.generateNF, textsDefault),
		post("/cancel_nf", s.cancelNF, textsDefault),
		post("/send_danfe_xml", s.sendDanfeXML, textsDefault),

		// The public payment portal: no tokens but the order's public one
		// (spec, Authentication 7); rate-limited per client address.
		{method: http.MethodGet, path: "/sales_orders/public_payment/:token", handler: s.publicPayment, auth: authPublic, envelope: envHTML, texts: textsDefault},
		{method: http.MethodGet, path: "/sales_orders/public_boleto/:token", handler: s.publicBoleto, auth: authPublic, envelope: envHTML, texts: textsDefault},
		{method: http.MethodGet, path: "/sales_orders/public_boleto_pdf/:token", handler: s.publicBoletoPDF, auth: authPublic, envelope: envHTML, texts: textsDefault},
		{method: http.MethodGet, path: "/sales_orders/public_pix_qr/:token", handler: s.publicPixQR, auth: authPublic, envelope: envHTML, texts: textsDefault},
		{method: http.MethodGet, path: "/sales_orders/public_danfe/:token", handler: s.publicDANFE, auth: authPublic, envelope: envHTML, texts: textsDefault},
		{method: http.MethodGet, path: "/sales_orders/public_danfe_pdf/:token", handler: s.publicDANFEPDF, auth: authPublic, envelope: envHTML, texts: textsDefault},
		{method: http.MethodGet, path: "/sales_orders/public_nf_xml/:token", handler: s.publicNFXML, auth: authPublic, envelope: envHTML, texts: textsDefault},
		with(post("/sales_orders/public_event", s.publicEvent, textsDefault), authPublic),
		with(post("/sales_orders/public_pay", s.publicPay, textsDefault), authPublic),

		// Purchases and the NF-e inbox (spec: 403 "Invalid data", 500 "Erro
		// desconhecido", as /list_sales_orders).
		post("/list_purchase_orders", s.listPurchaseOrders, textsListSalesOrders),
		post("/set_purchase_order_active", s.setPurchaseOrderActive, textsListSalesOrders),
		post("/get_purchase_order_by_id", s.getPurchaseOrderByID, textsListSalesOrders),
		post("/insert_purchase_order_by_access_key", s.insertPurchaseOrderByAccessKey, textsDefault),
		post("/list_nfes", s.listNFes, textsDefault),
		post("/manifest_nfe", s.manifestNFe, textsDefault),
		post("/import_nfe", s.importNFe, textsDefault),

		// Contracts and their templates.
		{method: http.MethodPost, path: "/insert_contract", handler: s.insertContract, auth: authUnit, envelope: envMessage, texts: textsContract},
		{method: http.MethodPost, path: "/update_contract", handler: s.updateContract, auth: authUnit, envelope: envMessage, texts: textsContract},
		post("/list_contracts", s.listContracts, textsContract),
		post("/enable_contract", setActive((*store.DB).SetContractActive, true, errContractNotFound, "Contract"), textsContract),
		post("/disable_contract", setActive((*store.DB).SetContractActive, false, errContractNotFound, "Contract"), textsContract),
		post("/get_contract_file", s.getContractFile, textsContract),
		post("/delete_contract_files", s.deleteContractFiles, textsContract),
		post("/get_contract_preview", s.getContractPreview, textsContract),
		post("/insert_contract_template", s.insertContractTemplate, textsContract),
		post("/update_contract_template", s.updateContractTemplate, textsContract),
		post("/list_contract_templates", s.listContractTemplates, textsContract),
		post("/get_contract_template", s.getContractTemplate, textsContract),
		post("/accept_pix_automatico", s.acceptPixAutomatico, textsContract),

		// Webhooks (fincom routes).
		post("/insert_webhook", s.insertWebhook, textsDefault),
		post("/list_webhooks", s.listWebhooks, textsDefault),
		post("/enable_webhook", setActive((*store.DB).SetWebhookActive, true, errWebhookNotFound, "Webhook"), textsDefault),
		post("/disable_webhook", setActive((*store.DB).SetWebhookActive, false, errWebhookNotFound, "Webhook"), textsDefault),
		post("/list_webhook_deliveries", s.listWebhookDeliveries, textsDefault),
		post("/list_audit", s.listAudit, textsDefault),

		// CRM.
		post("/insert_crm", s.insertCRM, textsCRM),
		post("/update_crm", s.updateCRM, textsCRM),
		post("/list_crm", s.listCRM, textsCRM),
		post("/enable_crm", setActive((*store.DB).SetCRMActive, true, errCRMNotFound, "CRM record"), textsCRM),
		post("/disable_crm", setActive((*store.DB).SetCRMActive, false, errCRMNotFound, "CRM record"), textsCRM),

		// Inventory.
		post("/get_inventory_moviment", s.getInventoryMoviment, textsInventory),
		post("/get_inventory_reports", s.getInventoryReports, textsInventory),
		post("/insert_inventory_movement", s.insertInventoryMovement, textsInventory),
		post("/update_inventory_movement", s.updateInventoryMovement, textsInventory),
		post("/enable_inventory_movement", s.setMovementActive(true), textsInventory),
		post("/disable_inventory_movement", s.setMovementActive(false), textsInventory),
		post("/get_stock_balance", s.getStockBalance, textsInventory),

		// Products and services.
		post("/get_products_and_services", s.getProductsAndServices, textsProducts),
		post("/list_stock_items_by_unit", s.listStockItemsByUnit, textsStock),
		post("/insert_product_or_service", s.insertProductOrService, textsDefault),
		post("/update_product_or_service", s.updateProductOrService, textsDefault),
		post("/enable_product_or_service", setActive((*store.DB).SetProductActive, true, errProductNotFound, "Product or service"), textsDefault),
		post("/disable_product_or_service", setActive((*store.DB).SetProductActive, false, errProductNotFound, "Product or service"), textsDefault),

		// Contacts.
		post("/get_contacts", s.getContacts, textsDefault),
		post("/insert_contact", s.insertContact, textsContact),
		post("/update_contact", s.updateContact, textsContact),
		post("/enable_contact", setActive((*store.DB).SetContactActive, true, errContactNotFound, "Contact"), textsContact),
		post("/disable_contact", setActive((*store.DB).SetContactActive, false, errContactNotFound, "Contact"), textsContact),

		// Categories and groups.
		post("/get_categories", s.getCategories, textsDefault),
		post("/list_group_categories", s.listGroupCategories, textsNo404),
		post("/insert_category", s.insertCategory, textsDefault),
		post("/update_category", s.updateCategory, textsDefault),
		post("/enable_category", setActive((*store.DB).SetCategoryActive, true, errCategoryNotFound, "Category"), textsDefault),
		post("/disable_category", setActive((*store.DB).SetCategoryActive, false, errCategoryNotFound, "Category"), textsDefault),

		// Projects.
		post("/get_projects", s.getProjects, textsDefault),
		post("/insert_project", s.insertProject, textsDefault),
		post("/update_project", s.updateProject, textsDefault),
		post("/enable_project", setActive((*store.DB).SetProjectActive, true, errProjectNotFound, "Project"), textsDefault),
		post("/disable_project", setActive((*store.DB).SetProjectActive, false, errProjectNotFound, "Project"), textsDefault),

		// Banks and bank accounts.
		post("/get_banks", s.getBanks, textsNo404),
		post("/get_type_banks", s.getTypeBanks, textsDefault),
		post("/insert_bank_account", s.insertBankAccount, textsDefault),
		post("/update_bank_account", s.updateBankAccount, textsUpdateBankAccount),
		post("/get_bank_account", s.getBankAccount, textsDefault),
		post("/enable_bank_account", setActive((*store.DB).SetBankAccountActive, true, errBankAccountNotFound, "Bank account"), textsDefault),
		post("/disable_bank_account", setActive((*store.DB).SetBankAccountActive, false, errBankAccountNotFound, "Bank account"), textsDefault),

		// Payment methods and users.
		post("/list_payments_method", s.listPaymentsMethod, textsDefault),
		post("/get_users", s.getUsers, textsDefault),
	}
}

// testRoutes exist only in test mode (404 otherwise); they act on the
// domain of the access token.
func (s *Server) testRoutes() []route {
	domain := func(path string, h handler) route {
		return route{method: http.MethodPost, path: path, handler: h, auth: authDomain, envelope: envDirect, texts: textsDefault}
	}
	return []route{
		domain("/_test/clock", s.testClock),
		domain("/_test/outbox", s.testOutbox),
		domain("/_test/job_runs", s.testJobRuns),
		domain("/_test/faults", s.testFaults),
		domain("/_test/journal", s.testJournal),
		domain("/_test/webhooks", s.testWebhooks),
		domain("/_test/documents", s.testDocuments),
		domain("/_test/snapshot", s.testSnapshot),
		domain("/_test/authority", s.testAuthority),
		{method: http.MethodPost, path: "/_test/refuse_charge", handler: s.testRefuseCharge, auth: authUnit, envelope: envDirect, texts: textsDefault},
		domain("/_test/reset", s.testReset),
		{method: http.MethodPost, path: "/_test/pay_charge", handler: s.testPayCharge, auth: authUnit, envelope: envDirect, texts: textsDefault},
		{method: http.MethodPost, path: "/_test/overdue_charge", handler: s.testOverdueCharge, auth: authUnit, envelope: envDirect, texts: textsDefault},
		{method: http.MethodPost, path: "/_test/domains", handler: s.testDomains, auth: authPublic, envelope: envDirect, texts: textsDefault},
	}
}

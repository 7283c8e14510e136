package server

import (
	"net/http"

	"fincom/server/docread"
	"fincom/server/preview"
	"fincom/store"
)

// texts are a route's answers to the failures every route can meet.
type texts struct {
	missing  *Error // absent tokens or required fields
	invalid  *Error // unknown or revoked access token
	unit     *Error // unit token not of the access token's domain
	format   *Error // a field of the wrong JSON type
	internal string // the 500 text; the cause is only logged
	// details: the missing text carries the spec's details, which
	// fields are missing (missingDetails).
	details bool
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
		details:  true,
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

// Tags of the OpenAPI document, by resource.
const (
	tagFinance   = "Finance"
	tagDocuments = "Documents"
	tagSales     = "Sales"
	tagPortal    = "Portal"
	tagPurchases = "Purchases"
	tagContracts = "Contracts"
	tagWebhooks  = "Webhooks"
	tagCRM       = "CRM"
	tagInventory = "Inventory"
	tagRegisters = "Registers"
	tagTestMode  = "Test mode"
)

// installmentQuery is the ?installment=N of the portal's documents: which
// installment's charge (default: the first that has one).
var installmentQuery = []queryParam{{"installment", "The installment (1, 2, ...); default: the first that has this document."}}

// done is the answer {success, message, token} of inserts and changes.
var done = tokenAnswer{}

// Each resource's not-found (and duplicate) texts, for the routes that
// name its records.
var (
	expenseErrs   = errMap{{store.ErrNotFound, errExpenseNotFound}, {store.ErrScreeningUnavailable, errScreeningUnavailable}}
	incomeErrs    = errMap{{store.ErrNotFound, errIncomeNotFound}, {store.ErrScreeningUnavailable, errScreeningUnavailable}}
	orderErrs     = errMap{{store.ErrNotFound, errSalesOrderNotFound}}
	contractErrs  = errMap{{store.ErrNotFound, errContractNotFound}}
	webhookErrs   = errMap{{store.ErrNotFound, errWebhookNotFound}}
	crmErrs       = errMap{{store.ErrNotFound, errCRMNotFound}}
	movementErrs  = errMap{{store.ErrNotFound, errMovementNotFound}}
	productErrs   = errMap{{store.ErrNotFound, errProductNotFound}, {store.ErrDuplicate, errProductCodeUsed}}
	contactErrs   = errMap{{store.ErrNotFound, errContactNotFound}, {store.ErrDuplicate, errRegisterUsed}, {errChoice, errInvalidContactType}}
	categoryErrs  = errMap{{store.ErrNotFound, errCategoryNotFound}, {store.ErrDuplicate, errCategoryExists}, {store.ErrInvalidReference, errCategoryGroupNotFound}}
	projectErrs   = errMap{{store.ErrNotFound, errProjectNotFound}}
	accountErrs   = errMap{{store.ErrNotFound, errBankAccountNotFound}}
	screeningErrs = errMap{{store.ErrNotFound, errScreeningMissing}}
)

// routeTable lists every route, in the spec's order, each declared once.
func (s *Server) routeTable() []route {
	return []route{
		// Transactions (POST / is the legacy name, spec Versioning) and cash
		// flow.
		{path: "/transactions", do: handle(s.transactions), auth: authUnits, texts: textsNo404,
			doc: doc{tag: tagFinance, summary: "Expenses and income of one or more units, filtered by dates, type and collector.", desc: docTransactions, resp: []store.Transaction{}}},
		{path: "/", do: handle(s.transactions), auth: authUnits, texts: textsNo404,
			doc: doc{tag: tagFinance, summary: "The legacy name of /transactions.", desc: docTransactions, resp: []store.Transaction{}}},
		{path: "/cash_flow", do: handle(s.cashFlow), texts: textsNo404,
			doc: doc{tag: tagFinance, summary: "Cash flow of a period: realized and forecast, by day and month.", desc: docCashFlow, resp: store.CashFlow{}}},
		{path: "/get_category_median", do: handle(s.getCategoryMedian), auth: authTecOrAccess, texts: textsNo404, errs: errMap{{errMissing, errProvideCNPJ}},
			doc: doc{tag: tagFinance, summary: "The category most used with a contact (null under two uses).", desc: docCategoryMedian, resp: nullable{store.CategoryUsage{}}}},

		// Expenses and income, their files, their status.
		{path: "/insert_expense", do: s.insertEntry(expense), need: []string{"description"}, texts: textsDefault, errs: expenseErrs, write: true,
			doc: doc{tag: tagFinance, summary: "Insert an expense (JSON, or multipart with attachments).", desc: docInsertEntry, resp: done, multipart: true}},
		{path: "/update_expense", do: s.updateEntry(expense), need: []string{"id_token"}, texts: textsDefault, errs: expenseErrs, write: true,
			doc: doc{tag: tagFinance, summary: "Update an expense; only the fields sent change.", desc: docUpdateEntry, resp: done, multipart: true}},
		{path: "/list_expense_files", do: s.listEntryFiles(expense), texts: textsDefault, errs: expenseErrs,
			doc: doc{tag: tagFinance, summary: "The attachments of an expense.", desc: docListEntryFiles, resp: []store.FileInfo{}}},
		{path: "/get_expense_file", do: s.getEntryFile(expense), texts: textsDefault, errs: append(errMap{{store.ErrFileNotFound, errFileNotFound}}, expenseErrs...),
			doc: doc{tag: tagFinance, summary: "The bytes of one attachment of an expense (a fincom route).", desc: docGetEntryFile, raw: storedTypes}},
		{path: "/insert_expense_files", do: s.insertEntryFiles(expense), texts: textsDefault, errs: expenseErrs, write: true,
			doc: doc{tag: tagFinance, summary: "Attach files to an expense (multipart).", desc: docInsertEntryFiles, resp: withMessage{Data: []string{}}, multipart: true}},
		{path: "/delete_expense_files", do: s.deleteEntryFiles(expense), texts: textsDefault, errs: append(errMap{{store.ErrFileNotFound, errFileNotFound}}, expenseErrs...), write: true,
			doc: doc{tag: tagFinance, summary: "Remove attachments of an expense.", desc: docDeleteEntryFiles, resp: done}},
		{path: "/insert_income", do: s.insertEntry(income), need: []string{"description"}, texts: textsDefault, errs: incomeErrs, write: true,
			doc: doc{tag: tagFinance, summary: "Insert an income (JSON, or multipart with attachments).", desc: docInsertEntry, resp: done, multipart: true}},
		{path: "/update_income", do: s.updateEntry(income), need: []string{"id_token"}, texts: textsDefault, errs: incomeErrs, write: true,
			doc: doc{tag: tagFinance, summary: "Update an income; only the fields sent change.", desc: docUpdateEntry, resp: done, multipart: true}},
		{path: "/list_income_files", do: s.listEntryFiles(income), texts: textsDefault, errs: incomeErrs,
			doc: doc{tag: tagFinance, summary: "The attachments of an income.", desc: docListEntryFiles, resp: []store.FileInfo{}}},
		{path: "/get_income_file", do: s.getEntryFile(income), texts: textsDefault, errs: append(errMap{{store.ErrFileNotFound, errFileNotFound}}, incomeErrs...),
			doc: doc{tag: tagFinance, summary: "The bytes of one attachment of an income (a fincom route).", desc: docGetEntryFile, raw: storedTypes}},
		{path: "/insert_income_files", do: s.insertEntryFiles(income), texts: textsDefault, errs: incomeErrs, write: true,
			doc: doc{tag: tagFinance, summary: "Attach files to an income (multipart).", desc: docInsertEntryFiles, resp: withMessage{Data: []string{}}, multipart: true}},
		{path: "/delete_income_files", do: s.deleteEntryFiles(income), texts: textsDefault, errs: append(errMap{{store.ErrFileNotFound, errFileNotFound}}, incomeErrs...), write: true,
			doc: doc{tag: tagFinance, summary: "Remove attachments of an income.", desc: docDeleteEntryFiles, resp: done}},
		{path: "/get_status", do: handle(s.getStatus), texts: textsDefault, errs: errMap{{store.ErrNotFound, errEntryNotFound}},
			doc: doc{tag: tagFinance, summary: "The status vocabulary, and the status of entries.", desc: docGetStatus, resp: statusAnswer{}}},

		// Reading documents, and the inbox of received ones.
		{path: "/get_ocr_data_by_file", do: plain(s.getOCRDataByFile), texts: textsDefault,
			doc: doc{tag: tagDocuments, summary: "Read an NF-e, NFC-e, NFS-e XML or a boleto PDF (multipart, one file).", desc: docOCR, resp: docread.Result{}, multipart: true}},
		{path: "/insert_screening", do: handle(s.insertScreening), texts: textsDefault, write: true,
			doc: doc{tag: tagDocuments, summary: "Put a received document in the screening inbox (multipart, one file).", desc: docInsertScreening, resp: done, multipart: true}},
		{path: "/list_screenings", do: handle(s.listScreenings), texts: textsDefault,
			doc: doc{tag: tagDocuments, summary: "The screening inbox (a fincom route).", desc: docListScreenings, resp: []store.Screening{}}},
		{path: "/discard_screening", do: handle(s.discardScreening), texts: textsDefault, errs: screeningErrs, write: true,
			doc: doc{tag: tagDocuments, summary: "Discard a pending screening (a fincom route).", desc: docDiscardScreening, resp: done}},

		// Sales orders.
		{path: "/list_sales_orders", do: handle(s.listSalesOrders), need: []string{"date_from", "date_to"}, texts: textsListSalesOrders, errs: errMap{{errMissing, errDatesRequired}},
			doc: doc{tag: tagSales, summary: "Sales orders of a period, with every field and filter.", desc: docListSalesOrders, resp: []store.SalesOrder{}}},
		{path: "/insert_sales_order", do: handle(s.insertSalesOrder), need: orderNeed, texts: textsInsertSalesOrder, errs: errMap{{errChoice, textsInsertSalesOrder.format}}, write: true,
			doc: doc{tag: tagSales, summary: "Insert a sales order (grouped or flat form), optionally recurring.", desc: docInsertSalesOrder, resp: withMessage{Data: orderCreated{}}}},
		{path: "/get_sales_order_by_id", do: handle(s.getSalesOrderByID), texts: textsDefault, errs: orderErrs,
			doc: doc{tag: tagSales, summary: "One sales order with its lines, charges, invoice and portal events.", desc: docGetSalesOrder, resp: orderDetail{}}},
		{path: "/enable_sales_order", do: setActive((*store.DB).SetSalesOrderActive, true, "Sales order"), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "Enable a sales order.", desc: docSetSalesOrderActive, resp: done}},
		{path: "/disable_sales_order", do: setActive((*store.DB).SetSalesOrderActive, false, "Sales order"), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "Disable a sales order.", desc: docSetSalesOrderActive, resp: done}},

		// Charges.
		{path: "/generate_charge", do: handle(s.generateCharge), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "Issue the order's charges (boleto, PIX or card) through its provider; idempotent.", desc: docGenerateCharge, resp: withMessage{Data: chargeAnswer{}}}},
		{path: "/cancel_charge", do: handle(s.cancelCharge), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "Cancel the order's unpaid charges.", desc: docCancelCharge, resp: done}},
		{path: "/settle_charge", do: handle(s.settleCharge), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "Record a payment the firm received outside fincom (cash, a transfer); a fincom route.", desc: docSettleCharge, resp: withMessage{Data: store.Payment{}}}},
		{path: "/export_remittance", do: handle(s.exportRemittance), texts: textsDefault, write: true,
			doc: doc{tag: tagSales, summary: "The unit's next CNAB 240 remittance for a bank, or an earlier one again (a fincom route).", desc: docExportRemittance, raw: "text/plain"}},
		{path: "/import_return", do: handle(s.importReturn), texts: textsDefault, write: true,
			doc: doc{tag: tagSales, summary: "Apply a bank's CNAB 240 return file (multipart; a fincom route).", desc: docImportReturn, resp: withMessage{Data: store.ReturnReport{}}, multipart: true}},
		{path: "/import_ofx", do: handle(s.importOFX), texts: textsDefault, write: true,
			doc: doc{tag: tagFinance, summary: "Import a bank account's OFX statement and match its lines (multipart; a fincom route).", desc: docImportOFX, resp: withMessage{Data: store.StatementReport{}}, multipart: true}},
		{path: "/list_statement_lines", do: handle(s.listStatementLines), texts: textsDefault,
			doc: doc{tag: tagFinance, summary: "The unit's statement lines and what each matched (a fincom route).", desc: docListStatementLines, resp: []store.StatementLine{}}},
		{path: "/reconcile_statement_line", do: handle(s.reconcileStatementLine), texts: textsDefault, errs: errMap{{store.ErrNotFound, errLineNotFound}}, write: true,
			doc: doc{tag: tagFinance, summary: "Pair an open statement line with an entry or a charge, or dismiss it (a fincom route).", desc: docReconcileStatementLine, resp: withMessage{Data: store.StatementLine{}}}},
		{path: "/resend_charge", do: handle(s.resendCharge), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "E-mail the order's open charge to the customer again.", desc: docResendCharge, resp: done}},

		// Fiscal invoices.
		{path: "/generate_nf", do: handle(s.generateNF), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "Issue the order's fiscal invoice (NF-e, NFC-e or NFS-e) once.", desc: docGenerateNF, resp: withMessage{Data: invoiceAnswer{}}}},
		{path: "/cancel_nf", do: handle(s.cancelNF), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "Cancel an authorized invoice within the cancellation window.", desc: docCancelNF, resp: done}},
		{path: "/send_danfe_xml", do: handle(s.sendDanfeXML), texts: textsDefault, errs: orderErrs, write: true,
			doc: doc{tag: tagSales, summary: "E-mail the invoice's XML and DANFE to the customer.", desc: docSendDanfeXML, resp: done}},

		// The public payment portal: no tokens but the order's public one
		// (spec, Authentication 7); rate-limited per client address.
		{method: http.MethodGet, path: "/sales_orders/public_payment/:token", do: plain(s.publicPayment), auth: authPublic, envelope: envHTML, texts: textsDefault,
			doc: doc{tag: tagPortal, summary: "The order's payment page.", desc: docPublicPayment, raw: "text/html"}},
		{method: http.MethodGet, path: "/sales_orders/public_boleto/:token", do: plain(s.publicBoleto), query: installmentQuery, auth: authPublic, envelope: envHTML, texts: textsDefault,
			doc: doc{tag: tagPortal, summary: "The printable boleto.", desc: docPublicBoleto, raw: "text/html"}},
		{method: http.MethodGet, path: "/sales_orders/public_boleto_pdf/:token", do: plain(s.publicBoletoPDF), query: installmentQuery, auth: authPublic, envelope: envHTML, texts: textsDefault,
			doc: doc{tag: tagPortal, summary: "The boleto as a PDF (a fincom route).", desc: docPublicBoletoPDF, raw: "application/pdf"}},
		{method: http.MethodGet, path: "/sales_orders/public_pix_qr/:token", do: plain(s.publicPixQR), query: installmentQuery, auth: authPublic, envelope: envHTML, texts: textsDefault,
			doc: doc{tag: tagPortal, summary: "The PIX BR Code as a QR code image.", desc: docPublicPixQR, raw: "image/png"}},
		{method: http.MethodGet, path: "/sales_orders/public_danfe/:token", do: plain(s.publicDANFE), auth: authPublic, envelope: envHTML, texts: textsDefault,
			doc: doc{tag: tagPortal, summary: "The invoice's DANFE page (a fincom route).", desc: docPublicDANFE, raw: "text/html"}},
		{method: http.MethodGet, path: "/sales_orders/public_danfe_pdf/:token", do: plain(s.publicDANFEPDF), auth: authPublic, envelope: envHTML, texts: textsDefault,
			doc: doc{tag: tagPortal, summary: "The invoice's DANFE as a PDF (a fincom route).", desc: docPublicDANFEPDF, raw: "application/pdf"}},
		{method: http.MethodGet, path: "/sales_orders/public_nf_xml/:token", do: plain(s.publicNFXML), auth: authPublic, envelope: envHTML, texts: textsDefault,
			doc: doc{tag: tagPortal, summary: "The authorized invoice's XML (a fincom route).", desc: docPublicNFXML, raw: "application/xml"}},
		{path: "/sales_orders/public_event", do: handle(s.publicEvent), auth: authPublic, texts: textsDefault, errs: errMap{{store.ErrNotFound, errPortalNotFound}},
			doc: doc{tag: tagPortal, summary: "Record a portal event (viewed, copied the PIX code, ...).", desc: docPublicEvent, resp: done}},
		{path: "/sales_orders/public_pay", do: handle(s.publicPay), auth: authPublic, texts: textsDefault, errs: errMap{{store.ErrNotFound, errPortalNotFound}},
			doc: doc{tag: tagPortal, summary: "Pay from the portal: test mode's simulated payer; 409 outside test mode.", desc: docPublicPay, resp: withMessage{Data: store.Payment{}}}},

		// Purchases and the NF-e inbox (spec: 403 "Invalid data", 500 "Erro
		// desconhecido", as /list_sales_orders).
		{path: "/list_purchase_orders", do: handle(s.listPurchaseOrders), texts: textsListSalesOrders,
			doc: doc{tag: tagPurchases, summary: "Purchase orders, with filters.", desc: docListPurchaseOrders, resp: []store.PurchaseOrder{}}},
		{path: "/set_purchase_order_active", do: handle(s.setPurchaseOrderActive), texts: textsListSalesOrders,
			errs: errMap{{store.ErrNotFound, textsListSalesOrders.invalid}}, write: true,
			doc: doc{tag: tagPurchases, summary: "Enable or disable a purchase order.", desc: docSetPurchaseActive, resp: okData{Data: purchaseActive{}}}},
		{path: "/get_purchase_order_by_id", do: handle(s.getPurchaseOrderByID), texts: textsListSalesOrders, errs: errMap{{store.ErrNotFound, textsListSalesOrders.invalid}},
			doc: doc{tag: tagPurchases, summary: "One purchase order with its items.", desc: docGetPurchaseOrder, resp: store.PurchaseOrder{}}},
		{path: "/insert_purchase_order_by_access_key", do: handle(s.insertPurchaseOrderByAccessKey), texts: textsDefault,
			errs: errMap{{store.ErrDuplicate, errPurchaseExists}}, write: true,
			doc: doc{tag: tagPurchases, summary: "Create a purchase order from an NF-e of the inbox or its access key.", desc: docPurchaseByKey, resp: done}},
		{path: "/list_nfes", do: plain(s.listNFes), texts: textsDefault,
			doc: doc{tag: tagPurchases, summary: "The inbox of NF-e issued to the unit.", desc: docListNFes, resp: []store.InboxNFe{}}},
		{path: "/manifest_nfe", do: handle(s.manifestNFe), texts: textsDefault,
			errs: errMap{{store.ErrNotFound, errNFeNotFound}, {store.ErrAlreadyManifested, errManifestDone}, {store.ErrManifestRule, errManifestTwice}}, write: true,
			doc: doc{tag: tagPurchases, summary: "Record the recipient's manifestation on an NF-e of the inbox.", desc: docManifestNFe, resp: done}},
		{path: "/import_nfe", do: plain(s.importNFe), texts: textsDefault, errs: errMap{{store.ErrDuplicate, errNFeInInbox}}, write: true,
			doc: doc{tag: tagPurchases, summary: "Import an NF-e XML into the inbox (multipart, one file; a fincom route).", desc: docImportNFe, resp: done, multipart: true}},

		// Contracts and their templates.
		{path: "/insert_contract", do: handle(s.insertContract), envelope: envMessage, need: []string{"id_token_contact", "contract_name", "validity_start"}, texts: textsContract, errs: contractErrs, write: true,
			doc: doc{tag: tagContracts, summary: "Insert a contract (JSON or multipart with PDF/image files).", desc: docInsertContract, resp: withMessage{Data: contractCreated{}}, multipart: true}},
		{path: "/update_contract", do: handle(s.updateContract), envelope: envMessage, need: []string{"id_token"}, texts: textsContract, errs: contractErrs, write: true,
			doc: doc{tag: tagContracts, summary: "Update a contract; only the fields sent change.", desc: docUpdateContract, resp: withMessage{Data: contractCreated{}}, multipart: true}},
		{path: "/list_contracts", do: handle(s.listContracts), texts: textsContract,
			doc: doc{tag: tagContracts, summary: "Contracts, with filters.", desc: docListContracts, resp: []store.Contract{}}},
		{path: "/enable_contract", do: setActive((*store.DB).SetContractActive, true, "Contract"), texts: textsContract, errs: contractErrs, write: true,
			doc: doc{tag: tagContracts, summary: "Enable a contract.", desc: docSetContractActive, resp: done}},
		{path: "/disable_contract", do: setActive((*store.DB).SetContractActive, false, "Contract"), texts: textsContract, errs: contractErrs, write: true,
			doc: doc{tag: tagContracts, summary: "Disable a contract.", desc: docSetContractActive, resp: done}},
		{path: "/get_contract_file", do: handle(s.getContractFile), texts: textsContract, errs: append(errMap{{store.ErrFileNotFound, errFileNotFound}}, contractErrs...),
			doc: doc{tag: tagContracts, summary: "The bytes of one file of a contract (a fincom route).", desc: docGetContractFile, raw: storedTypes}},
		{path: "/delete_contract_files", do: handle(s.deleteContractFiles), texts: textsContract, errs: append(errMap{{store.ErrFileNotFound, errFileNotFound}}, contractErrs...), write: true,
			doc: doc{tag: tagContracts, summary: "Remove files of a contract.", desc: docDeleteContractFiles, resp: done}},
		{path: "/get_contract_preview", do: handle(s.getContractPreview), texts: textsContract,
			errs: errMap{{preview.ErrContract, errContractNotFound}, {preview.ErrTemplate, errTemplateNotFound}, {preview.ErrContact, textsContract.invalid}},
			doc:  doc{tag: tagContracts, summary: "A contract, or a template for a contact, rendered as an HTML document.", desc: docContractPreview, resp: withMessage{Data: preview.ContractPreview{}}}},
		{path: "/insert_contract_template", do: handle(s.insertContractTemplate), need: []string{"name", "body_html"}, texts: textsContract, write: true,
			doc: doc{tag: tagContracts, summary: "Insert a contract template (sanitized HTML with placeholders; a fincom route).", desc: docInsertTemplate, resp: done}},
		{path: "/update_contract_template", do: handle(s.updateContractTemplate), need: []string{"id_token"}, texts: textsContract, errs: errMap{{store.ErrNotFound, errTemplateNotFound}}, write: true,
			doc: doc{tag: tagContracts, summary: "Update a contract template (a fincom route).", desc: docUpdateTemplate, resp: done}},
		{path: "/list_contract_templates", do: plain(s.listContractTemplates), texts: textsContract,
			doc: doc{tag: tagContracts, summary: "The unit's contract templates (a fincom route).", desc: docListTemplates, resp: []store.Template{}}},
		{path: "/get_contract_template", do: handle(s.getContractTemplate), texts: textsContract, errs: errMap{{store.ErrNotFound, errTemplateNotFound}},
			doc: doc{tag: tagContracts, summary: "One contract template (a fincom route).", desc: docGetTemplate, resp: store.Template{}}},
		{path: "/accept_pix_automatico", do: handle(s.acceptPixAutomatico), texts: textsContract,
			errs: append(errMap{{store.ErrNoPixAutomatico, errNoPixAutomatico}}, contractErrs...), write: true,
			doc: doc{tag: tagContracts, summary: "Record the payer's acceptance of a contract's PIX automático (a fincom route).", desc: docAcceptPixAutomatico, resp: withMessage{Data: chargeAnswer{}}}},

		// Webhooks and the audit log (fincom routes).
		{path: "/insert_webhook", do: handle(s.insertWebhook), texts: textsDefault, write: true,
			doc: doc{tag: tagWebhooks, summary: "Register a webhook with its events; answers the signing secret once.", desc: docInsertWebhook, resp: withMessage{Data: webhookCreated{}}}},
		{path: "/list_webhooks", do: plain(s.listWebhooks), texts: textsDefault,
			doc: doc{tag: tagWebhooks, summary: "The unit's webhooks (without secrets).", desc: docListWebhooks, resp: []store.Webhook{}}},
		{path: "/enable_webhook", do: setActive((*store.DB).SetWebhookActive, true, "Webhook"), texts: textsDefault, errs: webhookErrs, write: true,
			doc: doc{tag: tagWebhooks, summary: "Enable a webhook.", desc: docSetWebhookActive, resp: done}},
		{path: "/disable_webhook", do: setActive((*store.DB).SetWebhookActive, false, "Webhook"), texts: textsDefault, errs: webhookErrs, write: true,
			doc: doc{tag: tagWebhooks, summary: "Disable a webhook.", desc: docSetWebhookActive, resp: done}},
		{path: "/list_webhook_deliveries", do: plain(s.listWebhookDeliveries), texts: textsDefault,
			doc: doc{tag: tagWebhooks, summary: "The latest deliveries of the unit's webhooks, with attempts and outcome.", desc: docListDeliveries, resp: []store.Delivery{}}},
		{path: "/list_audit", do: plain(s.listAudit), texts: textsDefault,
			doc: doc{tag: tagWebhooks, summary: "The unit's audit log: who changed what, and when.", desc: docListAudit, resp: []store.AuditEntry{}}},

		// CRM.
		{path: "/insert_crm", do: handle(s.insertCRM), texts: textsCRM, errs: errMap{{store.ErrInvalidReference, errCRMContact}}, write: true,
			doc: doc{tag: tagCRM, summary: "Insert a CRM record.", desc: docInsertCRM, resp: done}},
		{path: "/update_crm", do: handle(s.updateCRM), need: []string{"id_token"}, texts: textsCRM, errs: append(errMap{{store.ErrInvalidReference, errCRMContact}}, crmErrs...), write: true,
			doc: doc{tag: tagCRM, summary: "Update a CRM record (a fincom route).", desc: docUpdateCRM, resp: done}},
		{path: "/list_crm", do: handle(s.listCRM), texts: textsCRM,
			doc: doc{tag: tagCRM, summary: "CRM records, with filters (a fincom route).", desc: docListCRM, resp: []store.CRMRecord{}}},
		{path: "/enable_crm", do: setActive((*store.DB).SetCRMActive, true, "CRM record"), texts: textsCRM, errs: crmErrs, write: true,
			doc: doc{tag: tagCRM, summary: "Enable a CRM record (a fincom route).", desc: docSetCRMActive, resp: done}},
		{path: "/disable_crm", do: setActive((*store.DB).SetCRMActive, false, "CRM record"), texts: textsCRM, errs: crmErrs, write: true,
			doc: doc{tag: tagCRM, summary: "Disable a CRM record (a fincom route).", desc: docSetCRMActive, resp: done}},

		// Inventory.
		{path: "/get_inventory_moviment", do: handle(s.getInventoryMoviment), texts: textsInventory,
			doc: doc{tag: tagInventory, summary: "Active inventory movements, with filters, newest first.", desc: docGetMovements, resp: []store.Movement{}}},
		{path: "/get_inventory_reports", do: handle(s.getInventoryReports), texts: textsInventory, errs: errMap{{errMissing, errReportParams}, {errChoice, errReportParams}},
			doc: doc{tag: tagInventory, summary: "A year's inventory report by product and month.", desc: docInventoryReports, resp: withMessage{Data: []store.ReportRow{}}}},
		{path: "/insert_inventory_movement", do: handle(s.insertInventoryMovement), need: []string{"id_token_product", "type", "quantity"}, texts: textsInventory, errs: movementErrs, write: true,
			doc: doc{tag: tagInventory, summary: "Insert an entry or exit of stock; exits never take stock below zero unless the unit allows it.", desc: docInsertMovement, resp: done}},
		{path: "/update_inventory_movement", do: handle(s.updateInventoryMovement), need: []string{"id_token"}, texts: textsInventory, errs: movementErrs, write: true,
			doc: doc{tag: tagInventory, summary: "Update an inventory movement.", desc: docUpdateMovement, resp: done}},
		{path: "/enable_inventory_movement", do: setActive((*store.DB).SetMovementActive, true, "Inventory movement"), texts: textsInventory, errs: movementErrs, write: true,
			doc: doc{tag: tagInventory, summary: "Enable an inventory movement.", desc: docSetMovementActive, resp: done}},
		{path: "/disable_inventory_movement", do: setActive((*store.DB).SetMovementActive, false, "Inventory movement"), texts: textsInventory, errs: movementErrs, write: true,
			doc: doc{tag: tagInventory, summary: "Disable an inventory movement.", desc: docSetMovementActive, resp: done}},
		{path: "/get_stock_balance", do: handle(s.getStockBalance), texts: textsInventory,
			doc: doc{tag: tagInventory, summary: "Stock balances by product (a fincom route).", desc: docStockBalance, resp: []store.StockBalance{}}},

		// Products and services.
		{path: "/get_products_and_services", do: handle(s.getProductsAndServices), texts: textsProducts,
			doc: doc{tag: tagRegisters, summary: "Products and services, with filters.", desc: docGetProducts, resp: []store.Product{}}},
		{path: "/list_stock_items_by_unit", do: plain(s.listStockItemsByUnit), texts: textsStock,
			doc: doc{tag: tagRegisters, summary: "The unit's stock items.", desc: docStockItems, resp: okData{Data: []store.StockItem{}}}},
		{path: "/insert_product_or_service", do: handle(s.insertProductOrService), need: []string{"description", "type"}, texts: textsDefault, errs: productErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Insert a product or service.", desc: docInsertProduct, resp: done}},
		{path: "/update_product_or_service", do: handle(s.updateProductOrService), need: []string{"id_token"}, texts: textsDefault, errs: productErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Update a product or service.", desc: docUpdateProduct, resp: done}},
		{path: "/enable_product_or_service", do: setActive((*store.DB).SetProductActive, true, "Product or service"), texts: textsDefault, errs: productErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Enable a product or service.", desc: docSetProductActive, resp: done}},
		{path: "/disable_product_or_service", do: setActive((*store.DB).SetProductActive, false, "Product or service"), texts: textsDefault, errs: productErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Disable a product or service.", desc: docSetProductActive, resp: done}},

		// Contacts.
		{path: "/get_contacts", do: handle(s.getContacts), texts: textsDefault,
			doc: doc{tag: tagRegisters, summary: "Active contacts; search by name, CPF or CNPJ.", desc: docGetContacts, resp: []store.Contact{}}},
		{path: "/insert_contact", do: handle(s.insertContact), need: []string{"type", "register"}, texts: textsContact, errs: contactErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Insert a contact (CPF, or CNPJ numeric or alphanumeric).", desc: docInsertContact, resp: done}},
		{path: "/update_contact", do: handle(s.updateContact), need: []string{"id_token"}, texts: textsContact, errs: contactErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Update a contact; only the fields sent change.", desc: docUpdateContact, resp: done}},
		{path: "/enable_contact", do: setActive((*store.DB).SetContactActive, true, "Contact"), texts: textsContact, errs: contactErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Enable a contact.", desc: docSetContactActive, resp: done}},
		{path: "/disable_contact", do: setActive((*store.DB).SetContactActive, false, "Contact"), texts: textsContact, errs: contactErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Disable a contact.", desc: docSetContactActive, resp: done}},

		// Categories and groups.
		{path: "/get_categories", do: handle(s.getCategories), texts: textsDefault,
			doc: doc{tag: tagRegisters, summary: "Categories of a module type.", desc: docGetCategories, resp: []store.Category{}}},
		{path: "/list_group_categories", do: handle(s.listGroupCategories), texts: textsNo404,
			doc: doc{tag: tagRegisters, summary: "Category groups of a module type.", desc: docListGroups, resp: []store.CategoryGroup{}}},
		{path: "/insert_category", do: handle(s.insertCategory), need: []string{"module_type", "category"}, texts: textsDefault, errs: categoryErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Insert a category.", desc: docInsertCategory, resp: done}},
		{path: "/update_category", do: handle(s.updateCategory), need: []string{"id_token"}, texts: textsDefault, errs: categoryErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Update a category.", desc: docUpdateCategory, resp: done}},
		{path: "/enable_category", do: setActive((*store.DB).SetCategoryActive, true, "Category"), texts: textsDefault, errs: categoryErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Enable a category.", desc: docSetCategoryActive, resp: done}},
		{path: "/disable_category", do: setActive((*store.DB).SetCategoryActive, false, "Category"), texts: textsDefault, errs: categoryErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Disable a category.", desc: docSetCategoryActive, resp: done}},

		// Projects.
		{path: "/get_projects", do: plain(s.getProjects), texts: textsDefault,
			doc: doc{tag: tagRegisters, summary: "The unit's active projects.", desc: docGetProjects, resp: []store.Project{}}},
		{path: "/insert_project", do: handle(s.insertProject), need: []string{"name"}, texts: textsDefault, write: true,
			doc: doc{tag: tagRegisters, summary: "Insert a project.", desc: docInsertProject, resp: done}},
		{path: "/update_project", do: handle(s.updateProject), need: []string{"id_token"}, texts: textsDefault, errs: projectErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Update a project.", desc: docUpdateProject, resp: done}},
		{path: "/enable_project", do: setActive((*store.DB).SetProjectActive, true, "Project"), texts: textsDefault, errs: projectErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Enable a project.", desc: docSetProjectActive, resp: done}},
		{path: "/disable_project", do: setActive((*store.DB).SetProjectActive, false, "Project"), texts: textsDefault, errs: projectErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Disable a project.", desc: docSetProjectActive, resp: done}},

		// Banks and bank accounts.
		{path: "/get_banks", do: handle(s.getBanks), texts: textsNo404,
			doc: doc{tag: tagRegisters, summary: "Brazilian banks of a group, ordered by name.", desc: docGetBanks, resp: []store.Bank{}}},
		{path: "/get_type_banks", do: plain(s.getTypeBanks), texts: textsDefault,
			doc: doc{tag: tagRegisters, summary: "Bank account types.", desc: docGetTypeBanks, resp: []store.BankType{}}},
		{path: "/insert_bank_account", do: handle(s.insertBankAccount), need: []string{"id_token_bank", "id_token_bank_type"}, texts: textsDefault, write: true,
			doc: doc{tag: tagRegisters, summary: "Insert a bank account.", desc: docInsertBankAccount, resp: done}},
		{path: "/update_bank_account", do: handle(s.updateBankAccount), need: []string{"id_token"}, texts: textsUpdateBankAccount, errs: accountErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Update a bank account.", desc: docUpdateBankAccount, resp: withMessage{Data: tokenData{}}}},
		{path: "/get_bank_account", do: handle(s.getBankAccount), texts: textsDefault, errs: accountErrs,
			doc: doc{tag: tagRegisters, summary: "One bank account by id_token, or all of the unit's.", desc: docGetBankAccount, resp: eitherOf{[]store.BankAccount{}, store.BankAccount{}}}},
		{path: "/enable_bank_account", do: setActive((*store.DB).SetBankAccountActive, true, "Bank account"), texts: textsDefault, errs: accountErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Enable a bank account.", desc: docSetBankAccountActive, resp: done}},
		{path: "/disable_bank_account", do: setActive((*store.DB).SetBankAccountActive, false, "Bank account"), texts: textsDefault, errs: accountErrs, write: true,
			doc: doc{tag: tagRegisters, summary: "Disable a bank account.", desc: docSetBankAccountActive, resp: done}},

		// Payment methods and users.
		{path: "/list_payments_method", do: plain(s.listPaymentsMethod), texts: textsDefault,
			doc: doc{tag: tagRegisters, summary: "Payment methods.", desc: docPaymentMethods, resp: []store.PaymentMethod{}}},
		{path: "/get_users", do: plain(s.getUsers), texts: textsDefault,
			doc: doc{tag: tagRegisters, summary: "The domain's users (the same for every unit).", desc: docGetUsers, resp: []store.User{}}},
	}
}

// testRoutes exist only in test mode (404 otherwise); most act on the
// domain of the access token.
func (s *Server) testRoutes() []route {
	return []route{
		{path: "/_test/clock", do: handle(s.testClock), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "Set or advance the domain's clock; advancing runs the jobs that fall due on the way.", desc: docTestClock, resp: clockAnswer{}}},
		{path: "/_test/outbox", do: plain(s.testOutbox), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "The e-mails queued and sent, without consuming them.", resp: []store.Mail{}}},
		{path: "/_test/job_runs", do: plain(s.testJobRuns), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "The scheduled jobs' runs and what each created.", resp: []store.JobRun{}}},
		{path: "/_test/faults", do: handle(s.testFaults), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "Set fault rules: by route, a probability of a fixed error or added latency.", resp: faultsRequest{}}},
		{path: "/_test/journal", do: plain(s.testJournal), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "The domain's last requests with their answers.", resp: []journalEntry{}}},
		{path: "/_test/webhooks", do: plain(s.testWebhooks), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "Every webhook delivery of the domain, with payloads.", resp: []store.Delivery{}}},
		{path: "/_test/documents", do: plain(s.testDocuments), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "The generated documents: boletos, BR Codes, invoice keys and XML.", resp: []store.Document{}}},
		{path: "/_test/snapshot", do: handle(s.testSnapshot), auth: authDomain, texts: textsDefault, errs: errMap{{store.ErrBadSnapshot, errSnapshot}},
			doc: doc{tag: tagTestMode, summary: "Save the domain's current state under a name.", resp: withMessage{Data: map[string]string{}}}},
		{path: "/_test/authority", do: handle(s.testAuthority), auth: authDomain, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "Make the simulated tax authority authorize, reject (code and reason) or delay.", resp: authorityMode{}}},
		{path: "/_test/refuse_charge", do: handle(s.testRefuseCharge), texts: textsDefault, errs: orderErrs,
			doc: doc{tag: tagTestMode, summary: "Refuse an order's open charge, as a card issuer would.", resp: done}},
		{path: "/_test/reset", do: handle(s.testReset), auth: authDomain, texts: textsDefault, errs: errMap{{store.ErrBadSnapshot, errSnapshot}},
			doc: doc{tag: tagTestMode, summary: "Reset the domain to a named snapshot, or to empty (units, tokens and users kept).", resp: withMessage{Data: map[string]string{}}}},
		{path: "/_test/pay_charge", do: handle(s.testPayCharge), texts: textsDefault, errs: errMap{{store.ErrNotFound, errNothingToPay}},
			doc: doc{tag: tagTestMode, summary: "Pay an order's charge: in full, partial, over, or late with fine and interest.", desc: docTestPayCharge, resp: withMessage{Data: store.Payment{}}}},
		{path: "/_test/bank_return", do: handle(s.testBankReturn), texts: textsDefault, errs: errMap{{store.ErrNotFound, errNothingToPay}},
			doc: doc{tag: tagTestMode, summary: "The CNAB 240 return file the simulated bank sends when an order's boleto is paid.", desc: docTestBankReturn, raw: "text/plain"}},
		{path: "/_test/overdue_charge", do: handle(s.testOverdueCharge), texts: textsDefault, errs: orderErrs,
			doc: doc{tag: tagTestMode, summary: "Make an order's open charges overdue now.", resp: withMessage{Data: map[string]int{}}}},
		{path: "/_test/domains", do: handle(s.testDomains), auth: authPublic, texts: textsDefault,
			doc: doc{tag: tagTestMode, summary: "Create a throw-away domain with one unit (optionally from another domain's snapshot); answers its tokens.", resp: testDomain{}}},
	}
}

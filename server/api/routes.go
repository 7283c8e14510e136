package api

import (
	"fincom/server/access"
	"fincom/server/accounting"
	"fincom/server/billing"
	"fincom/server/docread"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/server/ledger"
	"fincom/server/preview"
	"fincom/server/registers"
	"fincom/server/sales"
	"fincom/server/web"
	"fincom/store"
)

// Each resource's not-found (and duplicate) texts, for the routes that
// name its records.
var (
	expenseErrs   = web.ErrMap{{store.ErrNotFound, errExpenseNotFound}, {store.ErrScreeningUnavailable, errScreeningUnavailable}}
	incomeErrs    = web.ErrMap{{store.ErrNotFound, errIncomeNotFound}, {store.ErrScreeningUnavailable, errScreeningUnavailable}}
	contractErrs  = web.ErrMap{{store.ErrNotFound, errContractNotFound}}
	webhookErrs   = web.ErrMap{{store.ErrNotFound, errWebhookNotFound}}
	crmErrs       = web.ErrMap{{store.ErrNotFound, errCRMNotFound}}
	movementErrs  = web.ErrMap{{store.ErrNotFound, errMovementNotFound}}
	productErrs   = web.ErrMap{{store.ErrNotFound, errProductNotFound}, {store.ErrDuplicate, errProductCodeUsed}}
	contactErrs   = web.ErrMap{{store.ErrNotFound, errContactNotFound}, {store.ErrDuplicate, errRegisterUsed}, {web.ErrChoice, errInvalidContactType}}
	categoryErrs  = web.ErrMap{{store.ErrNotFound, errCategoryNotFound}, {store.ErrDuplicate, errCategoryExists}, {store.ErrInvalidReference, errCategoryGroupNotFound}}
	projectErrs   = web.ErrMap{{store.ErrNotFound, errProjectNotFound}}
	accountErrs   = web.ErrMap{{store.ErrNotFound, errBankAccountNotFound}}
	screeningErrs = web.ErrMap{{store.ErrNotFound, errScreeningMissing}}
)

// orderBodyErrs are a sales order's refusals, of /insert_sales_order and of
// a contract's sales_order alike (validated as the route validates it).
var orderBodyErrs = web.Answers(append((&web.Route{Do: web.Handle(salesOrders{}.insertSalesOrder)}).FieldErrors(),
	web.TextsInsertSalesOrder.Missing, web.TextsInsertSalesOrder.Format, sales.ErrNotifyEmail)...)

// What an entry's, a movement's and a product's handlers refuse in their
// own words, on insert and update alike; and a period's, by its fields'
// names.
var (
	entryChecks    = web.Answers(ledger.ErrInstalments, ledger.ErrDates, ledger.ErrTooSmall, ledger.ErrEvery, ledger.ErrRecurEnd, ledger.ErrLead, ledger.ErrSplitOnce, ledger.ErrWithScreening, errPaidNeedsAccount, errInvalidAccessKey, errInvalidBarcode, errInvalidCompetence, errInvalidUntil, errInvalidDueDate, web.ErrInvalidPayDay, web.ErrInvalidValue)
	movementChecks = web.Answers(errInvalidQuantity, errInvalidUnitary, errInvalidValidation, errInvalidMoveDate, errInvalidTypeIO)
	productChecks  = web.Answers(errInvalidProductCode, errNegativeValue, registers.ErrInvalidProductType, registers.ErrInvalidNCM, registers.ErrInvalidCFOP, registers.ErrInvalidUsageType, registers.ErrInvalidUnit, registers.ErrInvalidGTIN)
	periodFrom     = web.Answers(errInvalidFromDate, errInvalidToDate, errDateOrder, errDateRange)
	periodInitial  = web.Answers(errInvalidInitial, errInvalidFinal, errDateOrder, errDateRange)
)

// contactChecks are a contact's refusals of what it holds, on insert and
// update alike.
var contactChecks = web.Answers(registers.ErrInvalidKind, registers.ErrInvalidCPF, registers.ErrInvalidCNPJ, registers.ErrFullNameRequired,
	registers.ErrSocialReasonRequired, registers.ErrInvalidState, registers.ErrInvalidZip, registers.ErrInvalidEmail,
	registers.ErrIEWithoutState, registers.ErrInvalidIE, registers.ErrContributorUnregistered, registers.ErrExemptRegistered,
	registers.ErrInvalidContributor, errInvalidBirthDate, errInvalidCityIBGE)

// hookErrs: a PSP's callback to an unknown secret, of a domain that is
// gone or a unit without that PSP, is not found.
var hookErrs = append(web.Answers(errHookBody, web.ErrTooManyRequests), web.ErrMap{{store.ErrNoDomain, errHookUnknown}, {store.ErrNotFound, errHookUnknown}}...)

// RouteTable lists every route, in the spec's order, each declared once.
func (s *API) RouteTable() []web.Route {
	return []web.Route{
		// Transactions (POST / is the legacy name, spec Versioning) and cash
		// flow.
		{Path: "/transactions", Do: web.Handle(transactions{s}.transactions), Auth: web.AuthUnits, Texts: web.TextsNo404, Errs: periodFrom,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "from_date": "2026-11-01", "to_date": "2026-11-30", "type": "out"}`, Tag: web.TagFinance, Summary: "Expenses and income of one or more units, filtered by dates, type and collector.", Desc: docTransactions, Resp: []store.Transaction{}}},
		{Path: "/", Do: web.Handle(transactions{s}.transactions), Auth: web.AuthUnits, Texts: web.TextsNo404, Errs: periodFrom,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "from_date": "2026-11-01", "to_date": "2026-11-30"}`, Tag: web.TagFinance, Summary: "The legacy name of /transactions.", Desc: docTransactions, Resp: []store.Transaction{}}},
		{Path: "/cash_flow", Do: web.Handle(cashFlow{s}.cashFlow), Texts: web.TextsNo404, Errs: periodInitial,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "initial_date": "2026-11-01", "final_date": "2026-11-30"}`, Tag: web.TagFinance, Summary: "Cash flow of a period: realized and forecast, by day and month.", Desc: docCashFlow, Resp: store.CashFlow{}}},
		{Path: "/get_dre", Do: web.Handle(dre{s}.getDRE), Texts: web.TextsNo404, Errs: periodInitial,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "initial_date": "2026-11-01", "final_date": "2026-11-30", "basis": "cash"}`, Tag: web.TagFinance, Summary: "The result of a period by DRE group (a fincom route), beside the period before.", Desc: docGetDRE, Resp: accounting.DRE{}}},
		{Path: "/get_accountant_package", Do: web.Handle(dre{s}.accountantPackage), Texts: web.TextsNo404,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "month": "2026-11"}`, Tag: web.TagFinance, Summary: "The accountant's package of a month as a ZIP (a fincom route).", Desc: docAccountantPackage, Raw: "application/zip"}},
		{Path: "/get_category_median", Do: web.Handle(categoryMedian{s}.getCategoryMedian), Auth: web.AuthTecOrAccess, Texts: web.TextsNo404, Errs: append(web.Answers(errMedianCNPJ), web.ErrMap{{web.ErrMissing, errProvideCNPJ}}...),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "cnpj": "11.444.777/0001-61"}`, Tag: web.TagFinance, Summary: "The category most used with a contact (null under two uses).", Desc: docCategoryMedian, Resp: web.Nullable{V: store.CategoryUsage{}}}},

		// Expenses and income, their files, their status.
		{Path: "/insert_expense", Files: &web.DocumentFiles, Do: entries{s}.insertEntry(expense), Need: []string{"description"}, Texts: web.TextsDefault, Errs: append(entryChecks, expenseErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "description": "Aluguel de novembro", "value": "3500.00", "due_date": "2026-11-30", "id_token_contact": "00000000-0000-4000-8000-000000000089"}`, Tag: web.TagFinance, Summary: "Insert an expense (JSON, or multipart with attachments).", Desc: docInsertEntry, Resp: web.Done, Multipart: true}},
		{Path: "/update_expense", Files: &web.DocumentFiles, Do: entries{s}.updateEntry(expense), Need: []string{"id_token"}, Texts: web.TextsDefault, Errs: append(append(web.Answers(errEntryNoFieldsUpdate), entryChecks...), expenseErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000001", "due_date": "2026-12-05", "note": "Vencimento adiado a pedido do locador"}`, Tag: web.TagFinance, Summary: "Update an expense; only the fields sent change.", Desc: docUpdateEntry, Resp: web.Done, Multipart: true}},
		{Path: "/cancel_entry_group", Do: web.Handle(entries{s}.cancelEntryGroup), Texts: web.TextsDefault, Errs: web.ErrMap{{store.ErrNotFound, errEntryGroupNotFound}}, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000028"}`, Tag: web.TagFinance, Summary: "Cancel the open instalments of an entry's group (a fincom route).", Desc: docCancelEntryGroup, Resp: web.Done}},
		{Path: "/stop_entry_recurrence", Do: web.Handle(entries{s}.stopEntryRecurrence), Texts: web.TextsDefault, Errs: web.ErrMap{{store.ErrNotFound, errEntryRecurrenceNotFound}}, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000029"}`, Tag: web.TagFinance, Summary: "Stop the recurrence of a repeating entry (a fincom route).", Desc: docStopEntryRecurrence, Resp: web.Done}},
		{Path: "/list_expense_files", Do: entryFiles{s}.listEntryFiles(expense), Texts: web.TextsDefault, Errs: expenseErrs,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000001"}`, Tag: web.TagFinance, Summary: "The attachments of an expense.", Desc: docListEntryFiles, Resp: []store.FileInfo{}}},
		{Path: "/get_expense_file", Do: entryFiles{s}.getEntryFile(expense), Texts: web.TextsDefault, Errs: append(web.ErrMap{{store.ErrFileNotFound, errFileNotFound}}, expenseErrs...),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000001", "file_token": "00000000-0000-4000-9000-000000000002"}`, Tag: web.TagFinance, Summary: "The bytes of one attachment of an expense (a fincom route).", Desc: docGetEntryFile, Raw: web.StoredTypes}},
		{Path: "/insert_expense_files", Files: &web.DocumentFiles, Do: entryFiles{s}.insertEntryFiles(expense), Texts: web.TextsDefault, Errs: append(web.Answers(web.ErrNoFiles), expenseErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000001"}`, ExampleFile: "boleto.pdf", Tag: web.TagFinance, Summary: "Attach files to an expense (multipart).", Desc: docInsertEntryFiles, Resp: web.WithMessage{Data: []string{}}, Multipart: true}},
		{Path: "/delete_expense_files", Do: entryFiles{s}.deleteEntryFiles(expense), Texts: web.TextsDefault, Errs: append(web.ErrMap{{store.ErrFileNotFound, errFileNotFound}}, expenseErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000001", "files": ["00000000-0000-4000-9000-000000000002"]}`, Tag: web.TagFinance, Summary: "Remove attachments of an expense.", Desc: docDeleteEntryFiles, Resp: web.Done}},
		{Path: "/insert_income", Files: &web.DocumentFiles, Do: entries{s}.insertEntry(income), Need: []string{"description"}, Texts: web.TextsDefault, Errs: append(entryChecks, incomeErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "description": "Consultoria de novembro", "value": "4200.00", "due_date": "2026-11-25", "id_token_contact": "00000000-0000-4000-8000-000000000089"}`, Tag: web.TagFinance, Summary: "Insert an income (JSON, or multipart with attachments).", Desc: docInsertEntry, Resp: web.Done, Multipart: true}},
		{Path: "/update_income", Files: &web.DocumentFiles, Do: entries{s}.updateEntry(income), Need: []string{"id_token"}, Texts: web.TextsDefault, Errs: append(append(web.Answers(errEntryNoFieldsUpdate), entryChecks...), incomeErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000003", "due_date": "2026-12-10", "note": "Cliente pediu nova data"}`, Tag: web.TagFinance, Summary: "Update an income; only the fields sent change.", Desc: docUpdateEntry, Resp: web.Done, Multipart: true}},
		{Path: "/list_income_files", Do: entryFiles{s}.listEntryFiles(income), Texts: web.TextsDefault, Errs: incomeErrs,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000003"}`, Tag: web.TagFinance, Summary: "The attachments of an income.", Desc: docListEntryFiles, Resp: []store.FileInfo{}}},
		{Path: "/get_income_file", Do: entryFiles{s}.getEntryFile(income), Texts: web.TextsDefault, Errs: append(web.ErrMap{{store.ErrFileNotFound, errFileNotFound}}, incomeErrs...),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000003", "file_token": "00000000-0000-4000-9000-000000000004"}`, Tag: web.TagFinance, Summary: "The bytes of one attachment of an income (a fincom route).", Desc: docGetEntryFile, Raw: web.StoredTypes}},
		{Path: "/insert_income_files", Files: &web.DocumentFiles, Do: entryFiles{s}.insertEntryFiles(income), Texts: web.TextsDefault, Errs: append(web.Answers(web.ErrNoFiles), incomeErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000003"}`, ExampleFile: "boleto.pdf", Tag: web.TagFinance, Summary: "Attach files to an income (multipart).", Desc: docInsertEntryFiles, Resp: web.WithMessage{Data: []string{}}, Multipart: true}},
		{Path: "/delete_income_files", Do: entryFiles{s}.deleteEntryFiles(income), Texts: web.TextsDefault, Errs: append(web.ErrMap{{store.ErrFileNotFound, errFileNotFound}}, incomeErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000003", "files": ["00000000-0000-4000-9000-000000000004"]}`, Tag: web.TagFinance, Summary: "Remove attachments of an income.", Desc: docDeleteEntryFiles, Resp: web.Done}},
		{Path: "/get_status", Do: web.Handle(status{s}.getStatus), Texts: web.TextsDefault, Errs: web.ErrMap{{store.ErrNotFound, errEntryNotFound}},
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000001"}`, Tag: web.TagFinance, Summary: "The status vocabulary, and the status of entries.", Desc: docGetStatus, Resp: statusAnswer{}}},

		// Reading documents, and the inbox of received ones.
		{Path: "/get_ocr_data_by_file", Files: &web.DocumentFiles, Do: web.Plain(screenings{s}.getOCRDataByFile), Texts: web.TextsDefault, Errs: web.Answers(web.ErrNoFiles, errOneFile, errUnreadable, errNoOCR),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, ExampleFile: "boleto.pdf", Tag: web.TagDocuments, Summary: "Read an NF-e, NFC-e, NFS-e XML or a boleto PDF (multipart, one file).", Desc: docOCR, Resp: docread.Result{}, Multipart: true}},
		{Path: "/insert_screening", Files: &web.DocumentFiles, Do: web.Handle(screenings{s}.insertScreening), Texts: web.TextsDefault, Errs: web.Answers(web.ErrNoFiles, errOneFile), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "note": "Boleto da energia de novembro"}`, ExampleFile: "boleto.pdf", Tag: web.TagDocuments, Summary: "Put a received document in the screening inbox (multipart, one file).", Desc: docInsertScreening, Resp: web.Done, Multipart: true}},
		{Path: "/list_screenings", Do: web.Handle(screenings{s}.listScreenings), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "status": "pending", "page": 1, "page_size": 50}`, Tag: web.TagDocuments, Summary: "The screening inbox (a fincom route).", Desc: docListScreenings, Resp: web.Paged{Data: []store.Screening{}}}},
		{Path: "/discard_screening", Do: web.Handle(screenings{s}.discardScreening), Texts: web.TextsDefault, Errs: screeningErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000005"}`, Tag: web.TagDocuments, Summary: "Discard a pending screening (a fincom route).", Desc: docDiscardScreening, Resp: web.Done}},

		// Sales orders.
		{Path: "/list_sales_orders", Do: web.Handle(salesOrders{s}.listSalesOrders), Need: []string{"date_from", "date_to"}, Texts: web.TextsListSalesOrders, Errs: web.ErrMap{{web.ErrMissing, errDatesRequired}},
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "date_from": "2026-11-01", "date_to": "2026-12-31"}`, Tag: web.TagSales, Summary: "Sales orders of a period, with every field and filter.", Desc: docListSalesOrders, Resp: []store.SalesOrder{}}},
		{Path: "/insert_sales_order", Do: web.Handle(salesOrders{s}.insertSalesOrder), Texts: web.TextsInsertSalesOrder, Errs: append(web.Answers(sales.ErrNotifyEmail, web.ErrAmountRange), web.ErrMap{{web.ErrChoice, web.TextsInsertSalesOrder.Format}}...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "pv": {"id_token_contact": "00000000-0000-4000-8000-000000000089", "products": [{"token": "00000000-0000-4000-8000-000000000095", "quantity": 100}], "description": "Parafusos", "value": "35.00"}, "faturamento": {"id_token_category": "00000000-0000-4000-8000-000000000093", "estimated_payment_date": "2026-12-10"}, "charge": {"payment_type": "fb3245d4-428b-51de-95df-55e8263d2292", "charge_pix_key": "pix@acme.com.br"}}`, Tag: web.TagSales, Summary: "Insert a sales order (grouped or flat form), optionally recurring.", Desc: docInsertSalesOrder, Resp: web.WithMessage{Data: orderCreated{}}}},
		{Path: "/get_sales_order_by_id", Do: web.Handle(salesOrders{s}.getSalesOrderByID), Texts: web.TextsDefault, Errs: web.OrderErrs,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000006"}`, Tag: web.TagSales, Summary: "One sales order with its lines, charges, invoice and portal events.", Desc: docGetSalesOrder, Resp: orderDetail{}}},
		{Path: "/enable_sales_order", Do: setActive((*store.DB).SetSalesOrderActive, true, "Sales order"), Texts: web.TextsDefault, Errs: web.OrderErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000007"}`, Tag: web.TagSales, Summary: "Enable a sales order.", Desc: docSetSalesOrderActive, Resp: web.Done}},
		{Path: "/disable_sales_order", Do: setActive((*store.DB).SetSalesOrderActive, false, "Sales order"), Texts: web.TextsDefault, Errs: web.OrderErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000007"}`, Tag: web.TagSales, Summary: "Disable a sales order.", Desc: docSetSalesOrderActive, Resp: web.Done}},

		// Charges.
		{Path: "/generate_charge", Do: web.Handle(charges{s}.generateCharge), Texts: web.TextsDefault, Errs: append(web.Answers(billing.ErrProviderDown, billing.ErrProviderAnswer, billing.ErrProviderRefused, billing.ErrUnknownProvider, store.ErrOrderDisabled, store.ErrNoAgreement, web.ErrPayerIncomplete), web.OrderErrs...), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000006"}`, Tag: web.TagSales, Summary: "Issue the order's charges (boleto, PIX or card) through its provider; idempotent.", Desc: docGenerateCharge, Resp: web.WithMessage{Data: chargeAnswer{}}}},
		{Path: "/cancel_charge", Do: web.Handle(charges{s}.cancelCharge), Texts: web.TextsDefault, Errs: append(web.Answers(billing.ErrPSPDown, billing.ErrPSPAnswer, store.ErrAlreadyPaid, store.ErrNothingToCancel), web.OrderErrs...), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000020"}`, Tag: web.TagSales, Summary: "Cancel the order's unpaid charges.", Desc: docCancelCharge, Resp: web.Done}},
		{Path: "/refund_charge", Do: web.Handle(charges{s}.refundCharge), Texts: web.TextsDefault, Errs: append(web.Answers(billing.ErrRefundPending, billing.ErrRefundHeld, store.ErrRefundTooLarge, store.ErrNothingToRefund, billing.ErrPSPGone), web.OrderErrs...), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000008", "amount": "10.00", "reason": "Devolução parcial do pedido"}`, Tag: web.TagSales, Summary: "Refund the order's PIX payments received at the unit's PSP; a fincom route.", Desc: docRefundCharge, Resp: web.WithMessage{Data: []store.PSPRefund{}}}},
		{Path: "/settle_charge", Do: web.Handle(bankFiles{s}.settleCharge), Texts: web.TextsDefault, Errs: append(web.Answers(store.ErrNothingToPay), web.OrderErrs...), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000006", "date": "2026-11-20", "id_token_bank_account": "00000000-0000-4000-8000-000000000097"}`, Tag: web.TagSales, Summary: "Record a payment the firm received outside fincom (cash, a transfer); a fincom route.", Desc: docSettleCharge, Resp: web.WithMessage{Data: store.Payment{}}}},
		{Path: "/export_remittance", Do: web.Handle(bankFiles{s}.exportRemittance), Texts: web.TextsDefault, Write: true, Area: access.Charges,
			Errs: append(web.Answers(store.ErrNothingToRemit, store.ErrNoAgreement, web.ErrPayerIncomplete), web.ErrMap{{store.ErrNotFound, errRemittanceGone}}...),
			Doc:  web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "provider": "provider_a"}`, Tag: web.TagSales, Summary: "The unit's next CNAB 240 remittance for a bank, or an earlier one again (a fincom route).", Desc: docExportRemittance, Raw: "text/plain"}},
		{Path: "/import_return", Do: web.Handle(bankFiles{s}.importReturn), Texts: web.TextsDefault, Errs: web.Answers(web.ErrNoFiles, errOneFile, errNotReturn, web.ErrAmountRange, errForeignReturn), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "provider": "provider_a"}`, ExampleFile: "RET.txt", Tag: web.TagSales, Summary: "Apply a bank's CNAB 240 return file (multipart; a fincom route).", Desc: docImportReturn, Resp: web.WithMessage{Data: store.ReturnReport{}}, Multipart: true}},
		{Path: "/import_ofx", Do: web.Handle(statements{s}.importOFX), Texts: web.TextsDefault, Errs: append(web.Answers(web.ErrNoFiles, errOneFile, errNotOFX), web.Answers(errOtherAccount, errNotReais)...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token_bank_account": "00000000-0000-4000-8000-000000000097"}`, ExampleFile: "extrato.ofx", Tag: web.TagFinance, Summary: "Import a bank account's OFX statement and match its lines (multipart; a fincom route).", Desc: docImportOFX, Resp: web.WithMessage{Data: store.StatementReport{}}, Multipart: true}},
		{Path: "/list_statement_lines", Do: web.Handle(statements{s}.listStatementLines), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagFinance, Summary: "The unit's statement lines and what each matched (a fincom route).", Desc: docListStatementLines, Resp: web.Paged{Data: []store.StatementLine{}}}},
		{Path: "/reconcile_statement_line", Do: web.Handle(statements{s}.reconcileStatementLine), Texts: web.TextsDefault, Errs: append(web.Answers(web.ErrReconcileWhat, errBookCategory, store.ErrLineNotOpen, store.ErrAmountMismatch, store.ErrLineItemTwice, store.ErrLineItemsSum, store.ErrLineItemsMany, store.ErrNothingToPay, store.ErrLineOpen, store.ErrLineRestPaid, store.ErrLinePartPaid, store.ErrLineEffect), web.ErrMap{{store.ErrNotFound, errLineNotFound}}...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000011", "action": "dismiss", "description": "Tarifa já lançada à mão"}`, Tag: web.TagFinance, Summary: "Pair an open statement line with an entry or a charge, or dismiss it (a fincom route).", Desc: docReconcileStatementLine, Resp: web.WithMessage{Data: store.StatementLine{}}}},
		{Path: "/resend_charge", Do: web.Handle(charges{s}.resendCharge), Texts: web.TextsDefault, Errs: append(web.Answers(billing.ErrNoChargeEmail, store.ErrNoChargeToResend), web.OrderErrs...), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000021"}`, Tag: web.TagSales, Summary: "E-mail the order's open charge to the customer again.", Desc: docResendCharge, Resp: web.Done}},
		{Path: "/change_charge_due_date", Do: web.Handle(charges{s}.changeChargeDueDate), Texts: web.TextsDefault, Errs: append(web.Answers(billing.ErrNotABoleto, billing.ErrDueDate, store.ErrNothingToPay), web.OrderErrs...), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000021", "due_date": "2026-12-20"}`, Tag: web.TagSales, Summary: "Give an order's open boleto a new due date (a fincom route).", Desc: docChangeChargeDueDate, Resp: web.Done}},

		// Fiscal invoices.
		{Path: "/generate_nf", Do: web.Handle(invoices{s}.generateNF), Texts: web.TextsDefault, Errs: append(web.Answers(invoicing.ErrAuthorityDown, invoicing.ErrNotSent, invoicing.ErrNoSecretsKey, web.ErrSealedKey, web.ErrCertificate, web.ErrInvoiceRejected, invoicing.ErrNoCertificate, fiscal.ErrNotConnected, web.ErrInvoiceInvalid), web.OrderErrs...), Write: true, Area: access.Invoices,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000009"}`, Tag: web.TagSales, Summary: "Issue the order's fiscal invoice (NF-e, NFC-e or NFS-e) once.", Desc: docGenerateNF, Resp: web.WithMessage{Data: invoiceAnswer{}}}},
		{Path: "/cancel_nf", Do: web.Handle(invoices{s}.cancelNF), Texts: web.TextsDefault, Errs: append(web.Answers(invoicing.ErrAuthorityDown, invoicing.ErrAuthorityAnswer, invoicing.ErrEventNotSent, invoicing.ErrCancellationUnsure, invoicing.ErrNoSecretsKey, web.ErrCancelReason, invoicing.ErrCancellationRefused, web.ErrSealedKey, web.ErrCertificate, store.ErrNoInvoice, store.ErrCancelWindow, invoicing.ErrOfflinePending), web.OrderErrs...), Write: true, Area: access.Invoices,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000009", "reason": "Pedido cancelado pelo cliente antes da entrega"}`, Tag: web.TagSales, Summary: "Cancel an authorized invoice within the cancellation window.", Desc: docCancelNF, Resp: web.Done}},
		{Path: "/replace_nf", Do: web.Handle(invoices{s}.replaceNF), Texts: web.TextsDefault, Errs: append(web.Answers(invoicing.ErrReplacementUnsure, invoicing.ErrAuthorityDown, invoicing.ErrAuthorityAnswer, invoicing.ErrEventNotSent, invoicing.ErrNoSecretsKey, web.ErrCancelReason, invoicing.ErrNotReplaceable, web.ErrSealedKey, web.ErrCertificate, invoicing.ErrReplacementRefused), web.OrderErrs...), Write: true, Area: access.Invoices,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000010", "reason": "Valor do serviço informado a maior", "reason_code": "99"}`, Tag: web.TagSales, Summary: "Replace the order's national NFS-e by a corrected one (a fincom route).", Desc: docReplaceNF,
				Resp: web.WithMessage{Data: invoiceAnswer{}}}},
		{Path: "/send_danfe_xml", Do: web.Handle(invoices{s}.sendDanfeXML), Texts: web.TextsDefault, Errs: append(web.Answers(invoicing.ErrNoNFEmail, store.ErrNoInvoice), web.OrderErrs...), Write: true, Area: access.Invoices,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000010"}`, Tag: web.TagSales, Summary: "E-mail the invoice's XML and DANFE to the customer.", Desc: docSendDanfeXML, Resp: web.Done}},

		// The PSP's callback (beyond the spec): the unit's webhook address,
		// under a secret path part; each Pix is confirmed with the PSP.
		{Path: "/psp/:secret/pix", Do: web.Plain(pspHooks{s}.pixHook), Auth: web.AuthPublic, Texts: web.TextsDefault, Errs: hookErrs,
			Doc: web.Doc{Example: `{"pix": [{"endToEndId": "E12345678202611221200a1b2c3d4e5f", "txid": "fincom7f3a9c2e5b1d4086a2c9e7f1b3d5", "valor": "47.30", "horario": "2026-11-22T12:00:00.000Z", "chave": "11222333000181"}]}`, ExampleParam: "fcw_acme_6b1d0e9f3a2c7458", Tag: web.TagPortal, Summary: "The PSP's webhook: Pix arrived (the API Pix's callback); each is confirmed with the PSP; a fincom route.", Desc: docPSPHook,
				Resp: map[string]int{}}},
		{Path: "/psp/:secret/rec", Do: web.Plain(pspHooks{s}.recHook), Auth: web.AuthPublic, Texts: web.TextsDefault, Errs: hookErrs,
			Doc: web.Doc{Example: `{"recs": [{"idRec": "RR1234567820261122abcdefghijk", "status": "APROVADA"}]}`, ExampleParam: "fcw_acme_6b1d0e9f3a2c7458", Tag: web.TagPortal, Summary: "The PSP's webhook: a PIX automático recurrence changed; each is asked of the PSP; a fincom route.", Desc: docRecHook,
				Resp: map[string]int{}}},
		{Path: "/psp/:secret/cobr", Do: web.Plain(pspHooks{s}.cobrHook), Auth: web.AuthPublic, Texts: web.TextsDefault, Errs: hookErrs,
			Doc: web.Doc{Example: `{"cobsr": [{"idRec": "RR1234567820261122abcdefghijk", "txid": "3136957d93134f2184b369e8f1c0729d", "status": "CONCLUIDA"}]}`, ExampleParam: "fcw_acme_6b1d0e9f3a2c7458", Tag: web.TagPortal, Summary: "The PSP's webhook: a PIX automático charge changed; each is asked of the PSP; a fincom route.", Desc: docCobRHook,
				Resp: map[string]int{}}},
		// Purchases and the NF-e inbox (spec: 403 "Invalid data", 500 "Erro
		// desconhecido", as /list_sales_orders).
		{Path: "/list_purchase_orders", Do: web.Handle(purchases{s}.listPurchaseOrders), Texts: web.TextsListSalesOrders,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagPurchases, Summary: "Purchase orders, with filters.", Desc: docListPurchaseOrders, Resp: []store.PurchaseOrder{}}},
		{Path: "/set_purchase_order_active", Do: web.Handle(purchases{s}.setPurchaseOrderActive), Texts: web.TextsListSalesOrders,
			Errs: web.ErrMap{{store.ErrNotFound, web.TextsListSalesOrders.Invalid}}, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token_purchase_order": "00000000-0000-4000-9000-000000000012", "active": false}`, Tag: web.TagPurchases, Summary: "Enable or disable a purchase order.", Desc: docSetPurchaseActive, Resp: web.OkData{Data: purchaseActive{}}}},
		{Path: "/get_purchase_order_by_id", Do: web.Handle(purchases{s}.getPurchaseOrderByID), Texts: web.TextsListSalesOrders, Errs: web.ErrMap{{store.ErrNotFound, web.TextsListSalesOrders.Invalid}},
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000012"}`, Tag: web.TagPurchases, Summary: "One purchase order with its items.", Desc: docGetPurchaseOrder, Resp: store.PurchaseOrder{}}},
		{Path: "/insert_purchase_order_by_access_key", Do: web.Handle(purchases{s}.insertPurchaseOrderByAccessKey), Texts: web.TextsDefault,
			Errs: append(web.Answers(errKeyIssuer, errInvalidAccessKeyPO), web.ErrMap{{store.ErrDuplicate, errPurchaseExists}}...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "access_key": "35170458716523000119550010000000121000543210", "category_id_token": "00000000-0000-4000-8000-000000000093"}`, Tag: web.TagPurchases, Summary: "Create a purchase order from an NF-e of the inbox or its access key.", Desc: docPurchaseByKey, Resp: web.Done}},
		{Path: "/list_nfes", Do: web.Handle(purchases{s}.listNFes), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "page": 1, "page_size": 50}`, Tag: web.TagPurchases, Summary: "The inbox of NF-e issued to the unit.", Desc: docListNFes, Resp: web.Paged{Data: []store.InboxNFe{}}}},
		{Path: "/manifest_nfe", Do: web.Handle(purchases{s}.manifestNFe), Texts: web.TextsDefault,
			Errs: append(web.Answers(errManifestReason), web.ErrMap{{store.ErrNotFound, errNFeNotFound}, {store.ErrAlreadyManifested, errManifestDone}, {store.ErrManifestRule, errManifestTwice}}...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "access_key": "35170458716523000119550010000000121000543210", "event": "ciencia"}`, Tag: web.TagPurchases, Summary: "Record the recipient's manifestation on an NF-e of the inbox.", Desc: docManifestNFe, Resp: web.Done}},
		{Path: "/import_nfe", Files: &web.DocumentFiles, Do: web.Plain(purchases{s}.importNFe), Texts: web.TextsDefault, Errs: append(web.Answers(web.ErrNoFiles, errNFeNotAuthorized, errNFeSignature, errNFeNotConfirmed, errForeignNFe), web.ErrMap{{store.ErrDuplicate, errNFeInInbox}, {invoicing.ErrConfirmDown, errNFeConfirmDown}}...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, ExampleFile: "nota.xml", Tag: web.TagPurchases, Summary: "Import an NF-e XML into the inbox (multipart, one file; a fincom route).", Desc: docImportNFe, Resp: web.Done, Multipart: true}},

		// Contracts and their templates.
		{Path: "/insert_contract", Files: &web.ContractFiles, Do: web.Handle(contracts{s}.insertContract), Envelope: web.EnvMessage, Need: []string{"id_token_contact", "contract_name", "validity_start"}, Texts: web.TextsContract, Errs: append(append(web.Answers(registers.ErrContractDates), orderBodyErrs...), contractErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token_contact": "00000000-0000-4000-8000-000000000089", "contract_name": "Manutenção mensal", "validity_start": "2026-12-01", "validity_end": "2027-11-30", "is_recurring": true, "recurrence_type": "monthly", "description": "Manutenção preventiva do parque de TI"}`, Tag: web.TagContracts, Summary: "Insert a contract (JSON or multipart with PDF/image files).", Desc: docInsertContract, Resp: web.WithMessage{Data: contractCreated{}}, Multipart: true}},
		{Path: "/update_contract", Files: &web.ContractFiles, Do: web.Handle(contracts{s}.updateContract), Envelope: web.EnvMessage, Need: []string{"id_token"}, Texts: web.TextsContract, Errs: append(web.Answers(registers.ErrContractDates, errContractNoFields), contractErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000013", "validity_end": "2028-11-30", "auto_extend": true}`, Tag: web.TagContracts, Summary: "Update a contract; only the fields sent change.", Desc: docUpdateContract, Resp: web.WithMessage{Data: contractCreated{}}, Multipart: true}},
		{Path: "/list_contracts", Do: web.Handle(contracts{s}.listContracts), Texts: web.TextsContract, Errs: web.Answers(registers.ErrContractDates),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "page": 1}`, Tag: web.TagContracts, Summary: "Contracts, with filters.", Desc: docListContracts, Resp: web.Paged{Data: []store.Contract{}}}},
		{Path: "/enable_contract", Do: setActive((*store.DB).SetContractActive, true, "Contract"), Texts: web.TextsContract, Errs: contractErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000013"}`, Tag: web.TagContracts, Summary: "Enable a contract.", Desc: docSetContractActive, Resp: web.Done}},
		{Path: "/disable_contract", Do: setActive((*store.DB).SetContractActive, false, "Contract"), Texts: web.TextsContract, Errs: contractErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000013"}`, Tag: web.TagContracts, Summary: "Disable a contract.", Desc: docSetContractActive, Resp: web.Done}},
		{Path: "/get_contract_file", Do: web.Handle(contracts{s}.getContractFile), Texts: web.TextsContract, Errs: append(web.ErrMap{{store.ErrFileNotFound, errFileNotFound}}, contractErrs...),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000013", "file_token": "00000000-0000-4000-9000-000000000014"}`, Tag: web.TagContracts, Summary: "The bytes of one file of a contract (a fincom route).", Desc: docGetContractFile, Raw: web.StoredTypes}},
		{Path: "/delete_contract_files", Do: web.Handle(contracts{s}.deleteContractFiles), Texts: web.TextsContract, Errs: append(web.ErrMap{{store.ErrFileNotFound, errFileNotFound}}, contractErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000013", "files": ["00000000-0000-4000-9000-000000000014"]}`, Tag: web.TagContracts, Summary: "Remove files of a contract.", Desc: docDeleteContractFiles, Resp: web.Done}},
		{Path: "/get_contract_preview", Do: web.Handle(contracts{s}.getContractPreview), Texts: web.TextsContract,
			Errs: append(web.Answers(errPreviewTarget), web.ErrMap{{preview.ErrContract, errContractNotFound}, {preview.ErrTemplate, errTemplateNotFound}, {preview.ErrContact, web.TextsContract.Invalid}}...),
			Doc:  web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_contract": "00000000-0000-4000-9000-000000000013"}`, Tag: web.TagContracts, Summary: "A contract, or a template for a contact, rendered as an HTML document.", Desc: docContractPreview, Resp: web.WithMessage{Data: preview.ContractPreview{}}}},
		{Path: "/insert_contract_template", Do: web.Handle(contracts{s}.insertContractTemplate), Need: []string{"name", "body_html"}, Texts: web.TextsContract, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "name": "Prestação de serviços", "body_html": "<h1>Contrato com {{contato_nome}}</h1><p>Início: {{contrato_inicio}}</p>"}`, Tag: web.TagContracts, Summary: "Insert a contract template (sanitized HTML with placeholders; a fincom route).", Desc: docInsertTemplate, Resp: web.Done}},
		{Path: "/update_contract_template", Do: web.Handle(contracts{s}.updateContractTemplate), Need: []string{"id_token"}, Texts: web.TextsContract, Errs: web.ErrMap{{store.ErrNotFound, errTemplateNotFound}}, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000015", "footer_html": "<p>São Paulo, {{data_hoje}}</p>"}`, Tag: web.TagContracts, Summary: "Update a contract template (a fincom route).", Desc: docUpdateTemplate, Resp: web.Done}},
		{Path: "/list_contract_templates", Do: web.Plain(contracts{s}.listContractTemplates), Texts: web.TextsContract,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagContracts, Summary: "The unit's contract templates (a fincom route).", Desc: docListTemplates, Resp: []store.Template{}}},
		{Path: "/get_contract_template", Do: web.Handle(contracts{s}.getContractTemplate), Texts: web.TextsContract, Errs: web.ErrMap{{store.ErrNotFound, errTemplateNotFound}},
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000015"}`, Tag: web.TagContracts, Summary: "One contract template (a fincom route).", Desc: docGetTemplate, Resp: store.Template{}}},
		{Path: "/request_pix_automatico", Do: web.Handle(contracts{s}.requestPixAutomatico), Texts: web.TextsContract,
			Errs: append(web.Answers(errPayerAccount, billing.ErrNoPSP), append(web.ErrMap{{store.ErrNoPixAutomatico, errNoPixAutomatico}}, contractErrs...)...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000016", "payer_ispb": "00000000", "payer_agency": "0001", "payer_account": "123456"}`, Tag: web.TagContracts, Summary: "Ask the unit's PSP for a contract's PIX automático recurrence (a fincom route).", Desc: docRequestPixAutomatico, Resp: web.WithMessage{Data: store.PixRecurrence{}}}},
		{Path: "/accept_pix_automatico", Do: web.Handle(contracts{s}.acceptPixAutomatico), Texts: web.TextsContract,
			Errs: append(web.ErrMap{{store.ErrNoPixAutomatico, errNoPixAutomatico}}, contractErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000016"}`, Tag: web.TagContracts, Summary: "Record the payer's acceptance of a contract's PIX automático (a fincom route).", Desc: docAcceptPixAutomatico, Resp: web.WithMessage{Data: chargeAnswer{}}}},

		// Webhooks and the audit log (fincom routes).
		{Path: "/insert_webhook", Do: web.Handle(webhooks{s}.insertWebhook), Texts: web.TextsDefault, Errs: web.Answers(errWebhookURL, errWebhookPrivate, errWebhookEvents), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "url": "https://erp.example.com/fincom/hooks", "events": ["charge.paid", "invoice.issued"]}`, Tag: web.TagWebhooks, Summary: "Register a webhook with its events; answers the signing secret once.", Desc: docInsertWebhook, Resp: web.WithMessage{Data: webhookCreated{}}}},
		{Path: "/list_webhooks", Do: web.Plain(webhooks{s}.listWebhooks), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagWebhooks, Summary: "The unit's webhooks (without secrets).", Desc: docListWebhooks, Resp: []store.Webhook{}}},
		{Path: "/enable_webhook", Do: setActive((*store.DB).SetWebhookActive, true, "Webhook"), Texts: web.TextsDefault, Errs: webhookErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000017"}`, Tag: web.TagWebhooks, Summary: "Enable a webhook.", Desc: docSetWebhookActive, Resp: web.Done}},
		{Path: "/disable_webhook", Do: setActive((*store.DB).SetWebhookActive, false, "Webhook"), Texts: web.TextsDefault, Errs: webhookErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000017"}`, Tag: web.TagWebhooks, Summary: "Disable a webhook.", Desc: docSetWebhookActive, Resp: web.Done}},
		{Path: "/list_webhook_deliveries", Do: web.Handle(webhooks{s}.listWebhookDeliveries), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "page_size": 20}`, Tag: web.TagWebhooks, Summary: "The latest deliveries of the unit's webhooks, with attempts and outcome.", Desc: docListDeliveries, Resp: web.Paged{Data: []store.Delivery{}}}},
		{Path: "/list_audit", Do: web.Handle(webhooks{s}.listAudit), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "search": "update_contact", "page_size": 20}`, Tag: web.TagWebhooks, Summary: "The unit's audit log: who changed what, and when.", Desc: docListAudit, Resp: web.Paged{Data: []store.AuditEntry{}}}},

		// CRM.
		{Path: "/insert_crm", Do: web.Handle(crm{s}.insertCRM), Texts: web.TextsCRM, Errs: append(web.Answers(errCRMRecordDate, errCRMNextContact), web.ErrMap{{store.ErrInvalidReference, errCRMContact}}...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_contact": "00000000-0000-4000-8000-000000000089", "record_date": "2026-11-22", "communication_type": "Telefone", "description": "Pediu proposta de manutenção", "contact_success": true}`, Tag: web.TagCRM, Summary: "Insert a CRM record.", Desc: docInsertCRM, Resp: web.Done}},
		{Path: "/update_crm", Do: web.Handle(crm{s}.updateCRM), Need: []string{"id_token"}, Texts: web.TextsCRM, Errs: append(web.Answers(errCRMRecordDate, errCRMNextContact, errCRMNoFields), append(web.ErrMap{{store.ErrInvalidReference, errCRMContact}}, crmErrs...)...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000018", "lead_status": "qualified", "next_contact_datetime": "2026-12-02 10:00:00", "next_contact_reason": "Enviar proposta"}`, Tag: web.TagCRM, Summary: "Update a CRM record (a fincom route).", Desc: docUpdateCRM, Resp: web.Done}},
		{Path: "/list_crm", Do: web.Handle(crm{s}.listCRM), Texts: web.TextsCRM, Errs: web.Answers(errCRMInvalidRange),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "date_from": "2026-11-01", "date_to": "2026-11-30"}`, Tag: web.TagCRM, Summary: "CRM records, with filters (a fincom route).", Desc: docListCRM, Resp: web.Paged{Data: []store.CRMRecord{}}}},
		{Path: "/enable_crm", Do: setActive((*store.DB).SetCRMActive, true, "CRM record"), Texts: web.TextsCRM, Errs: crmErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000018"}`, Tag: web.TagCRM, Summary: "Enable a CRM record (a fincom route).", Desc: docSetCRMActive, Resp: web.Done}},
		{Path: "/disable_crm", Do: setActive((*store.DB).SetCRMActive, false, "CRM record"), Texts: web.TextsCRM, Errs: crmErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000018"}`, Tag: web.TagCRM, Summary: "Disable a CRM record (a fincom route).", Desc: docSetCRMActive, Resp: web.Done}},

		// Inventory.
		{Path: "/get_inventory_moviment", Do: web.Handle(inventory{s}.getInventoryMoviment), Texts: web.TextsInventory, Errs: web.Answers(errInvalidRangeDate),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "module_type": "all", "dateRange1": "2026-01-01"}`, Tag: web.TagInventory, Summary: "Active inventory movements, with filters, newest first.", Desc: docGetMovements, Resp: []store.Movement{}}},
		{Path: "/get_inventory_reports", Do: web.Handle(inventory{s}.getInventoryReports), Texts: web.TextsInventory, Errs: web.ErrMap{{web.ErrMissing, errReportParams}, {web.ErrChoice, errReportParams}},
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "year": 2026, "type_data": "quantity"}`, Tag: web.TagInventory, Summary: "A year's inventory report by product and month.", Desc: docInventoryReports, Resp: web.WithMessage{Data: []store.ReportRow{}}}},
		{Path: "/insert_inventory_movement", Do: web.Handle(inventory{s}.insertInventoryMovement), Need: []string{"id_token_product", "type", "quantity"}, Texts: web.TextsInventory, Errs: append(append(web.Answers(store.ErrInsufficientStock), movementChecks...), movementErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token_product": "00000000-0000-4000-8000-000000000095", "type": "in", "quantity": "500", "unitary_value": "0.30", "date_in_out": "2026-11-10", "lote": "L2611"}`, Tag: web.TagInventory, Summary: "Insert an entry or exit of stock; exits never take stock below zero unless the unit allows it.", Desc: docInsertMovement, Resp: web.Done}},
		{Path: "/update_inventory_movement", Do: web.Handle(inventory{s}.updateInventoryMovement), Need: []string{"id_token"}, Texts: web.TextsInventory, Errs: append(append(web.Answers(errMovementNoFields, store.ErrInsufficientStock), movementChecks...), movementErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000019", "lote": "L2611-B"}`, Tag: web.TagInventory, Summary: "Update an inventory movement.", Desc: docUpdateMovement, Resp: web.Done}},
		{Path: "/enable_inventory_movement", Do: setActive((*store.DB).SetMovementActive, true, "Inventory movement"), Texts: web.TextsInventory, Errs: append(web.Answers(store.ErrInsufficientStock), movementErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000019"}`, Tag: web.TagInventory, Summary: "Enable an inventory movement.", Desc: docSetMovementActive, Resp: web.Done}},
		{Path: "/disable_inventory_movement", Do: setActive((*store.DB).SetMovementActive, false, "Inventory movement"), Texts: web.TextsInventory, Errs: append(web.Answers(store.ErrInsufficientStock), movementErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000019"}`, Tag: web.TagInventory, Summary: "Disable an inventory movement.", Desc: docSetMovementActive, Resp: web.Done}},
		{Path: "/get_stock_balance", Do: web.Handle(inventory{s}.getStockBalance), Texts: web.TextsInventory,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagInventory, Summary: "Stock balances by product (a fincom route).", Desc: docStockBalance, Resp: []store.StockBalance{}}},

		// Products and services.
		{Path: "/get_products_and_services", Do: web.Handle(products{s}.getProductsAndServices), Texts: web.TextsProducts,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "search": "Parafuso"}`, Tag: web.TagRegisters, Summary: "Products and services, with filters.", Desc: docGetProducts, Resp: []store.Product{}}},
		{Path: "/list_stock_items_by_unit", Do: web.Plain(products{s}.listStockItemsByUnit), Texts: web.TextsStock,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagRegisters, Summary: "The unit's stock items.", Desc: docStockItems, Resp: web.OkData{Data: []store.StockItem{}}}},
		{Path: "/insert_product_or_service", Do: web.Handle(products{s}.insertProductOrService), Need: []string{"description", "type"}, Texts: web.TextsDefault, Errs: append(append(web.Answers(registers.ErrInvalidIBSCBS), productChecks...), productErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "description": "Parafuso 12mm", "type": "product", "monetary_value": "0.45", "usage_type": "00", "ncm": "73181500", "cfop": "5102", "unit": "UN"}`, Tag: web.TagRegisters, Summary: "Insert a product or service.", Desc: docInsertProduct, Resp: web.Done}},
		{Path: "/update_product_or_service", Do: web.Handle(products{s}.updateProductOrService), Need: []string{"id_token"}, Texts: web.TextsDefault, Errs: append(append(web.Answers(errProductNoFieldsUpdate, registers.ErrInvalidIBSCBS), productChecks...), productErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000095", "monetary_value": "0.38"}`, Tag: web.TagRegisters, Summary: "Update a product or service.", Desc: docUpdateProduct, Resp: web.Done}},
		{Path: "/enable_product_or_service", Do: setActive((*store.DB).SetProductActive, true, "Product or service"), Texts: web.TextsDefault, Errs: productErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000095"}`, Tag: web.TagRegisters, Summary: "Enable a product or service.", Desc: docSetProductActive, Resp: web.Done}},
		{Path: "/disable_product_or_service", Do: setActive((*store.DB).SetProductActive, false, "Product or service"), Texts: web.TextsDefault, Errs: productErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000096"}`, Tag: web.TagRegisters, Summary: "Disable a product or service.", Desc: docSetProductActive, Resp: web.Done}},

		// Contacts.
		{Path: "/get_contacts", Do: web.Handle(contacts{s}.getContacts), Texts: web.TextsDefault, Errs: web.Answers(registers.ErrInvalidKind),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "search": "Alfa"}`, Tag: web.TagRegisters, Summary: "Active contacts; search by name, CPF or CNPJ.", Desc: docGetContacts, Resp: []store.Contact{}}},
		{Path: "/insert_contact", Do: web.Handle(contacts{s}.insertContact), Need: []string{"type", "register"}, Texts: web.TextsContact, Errs: append(contactChecks, contactErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "type": "legal", "register": "45.789.123/0001-91", "socialReason": "Comercial Horizonte Ltda", "fantasyName": "Horizonte", "email": "fin@horizonte.com.br", "phone": "(11) 3222-1100", "address": "Avenida Paulista", "number": "1000", "neighborhood": "Bela Vista", "city": "São Paulo", "state": "SP", "zip_code": "01310-100"}`, Tag: web.TagRegisters, Summary: "Insert a contact (CPF, or CNPJ numeric or alphanumeric).", Desc: docInsertContact, Resp: web.Done}},
		{Path: "/update_contact", Do: web.Handle(contacts{s}.updateContact), Need: []string{"id_token"}, Texts: web.TextsContact, Errs: append(append(web.Answers(errContactNoFieldsUpdate), contactChecks...), contactErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000089", "phone": "(11) 3333-4444"}`, Tag: web.TagRegisters, Summary: "Update a contact; only the fields sent change.", Desc: docUpdateContact, Resp: web.Done}},
		{Path: "/enable_contact", Do: setActive((*store.DB).SetContactActive, true, "Contact"), Texts: web.TextsContact, Errs: contactErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000089"}`, Tag: web.TagRegisters, Summary: "Enable a contact.", Desc: docSetContactActive, Resp: web.Done}},
		{Path: "/disable_contact", Do: setActive((*store.DB).SetContactActive, false, "Contact"), Texts: web.TextsContact, Errs: contactErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000090"}`, Tag: web.TagRegisters, Summary: "Disable a contact.", Desc: docSetContactActive, Resp: web.Done}},

		// Categories and groups.
		{Path: "/get_categories", Do: web.Handle(categories{s}.getCategories), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "type": "in"}`, Tag: web.TagRegisters, Summary: "Categories of a module type.", Desc: docGetCategories, Resp: []store.Category{}}},
		{Path: "/list_group_categories", Do: web.Handle(categories{s}.listGroupCategories), Texts: web.TextsNo404,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "type": "out"}`, Tag: web.TagRegisters, Summary: "Category groups of a module type.", Desc: docListGroups, Resp: []store.CategoryGroup{}}},
		{Path: "/insert_category", Do: web.Handle(categories{s}.insertCategory), Need: []string{"module_type", "category"}, Texts: web.TextsDefault, Errs: append(web.Answers(errInvalidTypeIO), categoryErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "module_type": "out", "category": "Tarifas de cartório"}`, Tag: web.TagRegisters, Summary: "Insert a category.", Desc: docInsertCategory, Resp: web.Done}},
		{Path: "/update_category", Do: web.Handle(categories{s}.updateCategory), Need: []string{"id_token"}, Texts: web.TextsDefault, Errs: append(web.Answers(errInvalidTypeIO, errCategoryNoFieldsUpdate), categoryErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000093", "note": "Mensalidades dos planos"}`, Tag: web.TagRegisters, Summary: "Update a category.", Desc: docUpdateCategory, Resp: web.Done}},
		{Path: "/enable_category", Do: setActive((*store.DB).SetCategoryActive, true, "Category"), Texts: web.TextsDefault, Errs: categoryErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000093"}`, Tag: web.TagRegisters, Summary: "Enable a category.", Desc: docSetCategoryActive, Resp: web.Done}},
		{Path: "/disable_category", Do: setActive((*store.DB).SetCategoryActive, false, "Category"), Texts: web.TextsDefault, Errs: categoryErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000093"}`, Tag: web.TagRegisters, Summary: "Disable a category.", Desc: docSetCategoryActive, Resp: web.Done}},

		// Projects.
		{Path: "/get_projects", Do: web.Plain(projects{s}.getProjects), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagRegisters, Summary: "The unit's active projects.", Desc: docGetProjects, Resp: []store.Project{}}},
		{Path: "/insert_project", Do: web.Handle(projects{s}.insertProject), Need: []string{"name"}, Texts: web.TextsDefault, Errs: web.Answers(errNegativeBudget), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "name": "Obra Centro"}`, Tag: web.TagRegisters, Summary: "Insert a project.", Desc: docInsertProject, Resp: web.Done}},
		{Path: "/update_project", Do: web.Handle(projects{s}.updateProject), Need: []string{"id_token"}, Texts: web.TextsDefault, Errs: append(web.Answers(errNegativeBudget, errProjectNoFieldsUpdate), projectErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000094", "budget": "14000.00"}`, Tag: web.TagRegisters, Summary: "Update a project.", Desc: docUpdateProject, Resp: web.Done}},
		{Path: "/enable_project", Do: setActive((*store.DB).SetProjectActive, true, "Project"), Texts: web.TextsDefault, Errs: projectErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000094"}`, Tag: web.TagRegisters, Summary: "Enable a project.", Desc: docSetProjectActive, Resp: web.Done}},
		{Path: "/disable_project", Do: setActive((*store.DB).SetProjectActive, false, "Project"), Texts: web.TextsDefault, Errs: projectErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000094"}`, Tag: web.TagRegisters, Summary: "Disable a project.", Desc: docSetProjectActive, Resp: web.Done}},

		// Banks and bank accounts.
		{Path: "/get_banks", Do: web.Handle(banks{s}.getBanks), Texts: web.TextsNo404,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "group_bank": "CB"}`, Tag: web.TagRegisters, Summary: "Brazilian banks of a group, ordered by name.", Desc: docGetBanks, Resp: []store.Bank{}}},
		{Path: "/get_type_banks", Do: web.Plain(banks{s}.getTypeBanks), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagRegisters, Summary: "Bank account types.", Desc: docGetTypeBanks, Resp: []store.BankType{}}},
		{Path: "/insert_bank_account", Do: web.Handle(bankAccounts{s}.insertBankAccount), Need: []string{"id_token_bank", "id_token_bank_type"}, Texts: web.TextsDefault, Errs: web.Answers(errInvalidDateBR), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token_bank": "a3cc5189-6ca7-5443-ab00-63be3f6c9fce", "id_token_bank_type": "182ebe6c-c130-5f8d-b612-58b4393f2223", "agency": "4321", "dv_agencia": "0", "current_account": "55123", "dv_conta": "7", "nick_name": "BB Folha", "opening_balance": "0.00", "opening_balance_date": "01/11/2026"}`, Tag: web.TagRegisters, Summary: "Insert a bank account.", Desc: docInsertBankAccount, Resp: web.Done}},
		{Path: "/update_bank_account", Do: web.Handle(bankAccounts{s}.updateBankAccount), Need: []string{"id_token"}, Texts: web.TextsUpdateBankAccount, Errs: append(web.Answers(errInvalidDateBR, errBankAccountNoFieldsUpdate), accountErrs...), Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000097", "nick_name": "BB Conta Movimento"}`, Tag: web.TagRegisters, Summary: "Update a bank account.", Desc: docUpdateBankAccount, Resp: web.WithMessage{Data: tokenData{}}}},
		{Path: "/get_bank_account", Do: web.Handle(bankAccounts{s}.getBankAccount), Texts: web.TextsDefault, Errs: accountErrs,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagRegisters, Summary: "One bank account by id_token, or all of the unit's.", Desc: docGetBankAccount, Resp: web.EitherOf{[]store.BankAccount{}, store.BankAccount{}}}},
		{Path: "/enable_bank_account", Do: setActive((*store.DB).SetBankAccountActive, true, "Bank account"), Texts: web.TextsDefault, Errs: accountErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000097"}`, Tag: web.TagRegisters, Summary: "Enable a bank account.", Desc: docSetBankAccountActive, Resp: web.Done}},
		{Path: "/disable_bank_account", Do: setActive((*store.DB).SetBankAccountActive, false, "Bank account"), Texts: web.TextsDefault, Errs: accountErrs, Write: true,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-8000-000000000097"}`, Tag: web.TagRegisters, Summary: "Disable a bank account.", Desc: docSetBankAccountActive, Resp: web.Done}},

		// Payment methods and users.
		{Path: "/list_payments_method", Do: web.Plain(paymentMethods{s}.listPaymentsMethod), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagRegisters, Summary: "Payment methods.", Desc: docPaymentMethods, Resp: []store.PaymentMethod{}}},
		{Path: "/get_users", Do: web.Plain(users{s}.getUsers), Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68"}`, Tag: web.TagRegisters, Summary: "The domain's users (the same for every unit).", Desc: docGetUsers, Resp: []store.User{}}},
	}
}

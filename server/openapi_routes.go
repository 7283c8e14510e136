package server

import (
	"fincom/server/docread"
	"fincom/store"
)

// routeDocs documents every route of routes.go for the OpenAPI document:
// what it does, the request struct its handler decodes and the value it
// returns. TestOpenAPIRoutes fails when a route is missing here or a doc
// names no route; the scenario tests fail when an answer does not match.
func routeDocs() map[string]apiDoc {
	const (
		finance   = "Finance"
		documents = "Documents"
		sales     = "Sales"
		portal    = "Portal"
		purchases = "Purchases"
		contracts = "Contracts"
		webhooks  = "Webhooks"
		crm       = "CRM"
		inventory = "Inventory"
		registers = "Registers"
		testMode  = "Test mode"
	)
	done := created{}
	return map[string]apiDoc{
		"/transactions":        {tag: finance, summary: "Expenses and income of one or more units, filtered by dates, status, category, contact.", req: transactionsRequest{}, resp: []store.Transaction{}},
		"/":                    {tag: finance, summary: "The legacy name of /transactions.", req: transactionsRequest{}, resp: []store.Transaction{}},
		"/cash_flow":           {tag: finance, summary: "Cash flow of a period: totals in and out, by day or month.", req: cashFlowRequest{}, resp: store.CashFlow{}},
		"/get_category_median": {tag: finance, summary: "The median amount of a category's entries (null under two entries).", req: categoryMedianRequest{}, resp: nullable{store.CategoryUsage{}}},

		"/insert_expense":       {tag: finance, summary: "Insert an expense (JSON, or multipart with attachments).", req: entryRequest{}, multipart: true, resp: done},
		"/update_expense":       {tag: finance, summary: "Update an expense; only the fields sent change.", req: entryRequest{}, multipart: true, resp: done},
		"/list_expense_files":   {tag: finance, summary: "The attachments of an expense.", req: idRequest{}, resp: []store.FileInfo{}},
		"/get_expense_file":     {tag: finance, summary: "The bytes of one attachment of an expense (a fincom route).", req: fileRequest{}, raw: storedTypes},
		"/insert_expense_files": {tag: finance, summary: "Attach files to an expense (multipart).", req: idRequest{}, multipart: true, resp: withMessage{Data: []string{}}},
		"/delete_expense_files": {tag: finance, summary: "Remove attachments of an expense.", req: deleteFilesRequest{}, resp: done},
		"/insert_income":        {tag: finance, summary: "Insert an income (JSON, or multipart with attachments).", req: entryRequest{}, multipart: true, resp: done},
		"/update_income":        {tag: finance, summary: "Update an income; only the fields sent change.", req: entryRequest{}, multipart: true, resp: done},
		"/list_income_files":    {tag: finance, summary: "The attachments of an income.", req: idRequest{}, resp: []store.FileInfo{}},
		"/get_income_file":      {tag: finance, summary: "The bytes of one attachment of an income (a fincom route).", req: fileRequest{}, raw: storedTypes},
		"/insert_income_files":  {tag: finance, summary: "Attach files to an income (multipart).", req: idRequest{}, multipart: true, resp: withMessage{Data: []string{}}},
		"/delete_income_files":  {tag: finance, summary: "Remove attachments of an income.", req: deleteFilesRequest{}, resp: done},
		"/get_status":           {tag: finance, summary: "The payment status of an entry, with its vocabulary.", req: getStatusRequest{}, resp: statusAnswer{}},

		"/get_ocr_data_by_file": {tag: documents, summary: "Read an NF-e, NFC-e, NFS-e XML or a boleto PDF (multipart, one file).", multipart: true, resp: docread.Result{}},
		"/insert_screening":     {tag: documents, summary: "Put a received document in the screening inbox (multipart, one file).", req: screeningRequest{}, multipart: true, resp: done},
		"/list_screenings":      {tag: documents, summary: "The screening inbox.", req: listScreeningsRequest{}, resp: []store.Screening{}},
		"/discard_screening":    {tag: documents, summary: "Discard a screened document.", req: idRequest{}, resp: done},

		"/list_sales_orders":     {tag: sales, summary: "Sales orders of a period, with every field and filter.", req: listSalesOrdersRequest{}, resp: []store.SalesOrder{}},
		"/insert_sales_order":    {tag: sales, summary: "Insert a sales order (grouped or flat form), optionally recurring.", req: salesOrderRequest{}, resp: withMessage{Data: orderCreated{}}},
		"/get_sales_order_by_id": {tag: sales, summary: "One sales order with its items, installments, charges and invoices.", req: idRequest{}, resp: orderDetail{}},
		"/enable_sales_order":    {tag: sales, summary: "Enable a sales order.", req: idRequest{}, resp: done},
		"/disable_sales_order":   {tag: sales, summary: "Disable a sales order.", req: idRequest{}, resp: done},
		"/generate_charge":       {tag: sales, summary: "Issue the order's charges (boleto, PIX or card) through the provider; idempotent.", req: idRequest{}, resp: withMessage{Data: chargeAnswer{}}},
		"/cancel_charge":         {tag: sales, summary: "Cancel the order's open charges.", req: idRequest{}, resp: done},
		"/resend_charge":         {tag: sales, summary: "Send the order's open charges to the customer again.", req: idRequest{}, resp: done},
		"/generate_nf":           {tag: sales, summary: "Issue the order's fiscal invoice (NF-e, NFC-e or NFS-e) once.", req: idRequest{}, resp: withMessage{Data: invoiceAnswer{}}},
		"/cancel_nf":             {tag: sales, summary: "Cancel an authorized invoice within the cancellation window.", req: cancelNFRequest{}, resp: done},
		"/send_danfe_xml":        {tag: sales, summary: "E-mail the DANFE and XML links to the customer.", req: idRequest{}, resp: done},

		"/sales_orders/public_payment/:token":    {tag: portal, summary: "The order's payment page.", raw: "text/html"},
		"/sales_orders/public_boleto/:token":     {tag: portal, summary: "The printable boleto.", raw: "text/html"},
		"/sales_orders/public_boleto_pdf/:token": {tag: portal, summary: "The boleto as a PDF (a fincom route).", raw: "application/pdf"},
		"/sales_orders/public_pix_qr/:token":     {tag: portal, summary: "The PIX BR Code as a QR code image.", raw: "image/png"},
		"/sales_orders/public_danfe/:token":      {tag: portal, summary: "The invoice's DANFE page.", raw: "text/html"},
		"/sales_orders/public_danfe_pdf/:token":  {tag: portal, summary: "The invoice's DANFE as a PDF (a fincom route).", raw: "application/pdf"},
		"/sales_orders/public_nf_xml/:token":     {tag: portal, summary: "The authorized invoice's XML.", raw: "application/xml"},
		"/sales_orders/public_event":             {tag: portal, summary: "Record a portal event (viewed, copied the PIX code, ...).", req: publicEventRequest{}, resp: done},
		"/sales_orders/public_pay":               {tag: portal, summary: "Confirm a payment from the portal (the provider's callback).", req: publicPayRequest{}, resp: withMessage{Data: store.Payment{}}},

		"/list_purchase_orders":                {tag: purchases, summary: "Purchase orders, with filters.", req: listPurchasesRequest{}, resp: []store.PurchaseOrder{}},
		"/set_purchase_order_active":           {tag: purchases, summary: "Enable or disable a purchase order.", req: setPurchaseActiveRequest{}, resp: okData{Data: purchaseActive{}}},
		"/get_purchase_order_by_id":            {tag: purchases, summary: "One purchase order with its items.", req: idRequest{}, resp: store.PurchaseOrder{}},
		"/insert_purchase_order_by_access_key": {tag: purchases, summary: "Create a purchase order from an NF-e of the inbox or its access key.", req: purchaseByKeyRequest{}, resp: done},
		"/list_nfes":                           {tag: purchases, summary: "The inbox of NF-e issued to the unit.", resp: []store.InboxNFe{}},
		"/manifest_nfe":                        {tag: purchases, summary: "Manifest the recipient's position on an NF-e of the inbox.", req: manifestRequest{}, resp: done},
		"/import_nfe":                          {tag: purchases, summary: "Import an NF-e XML into the inbox (multipart, one file).", multipart: true, resp: done},

		"/insert_contract":          {tag: contracts, summary: "Insert a contract (JSON or multipart with PDF/image files).", req: contractRequest{}, multipart: true, resp: withMessage{Data: contractCreated{}}},
		"/update_contract":          {tag: contracts, summary: "Update a contract; only the fields sent change.", req: contractRequest{}, multipart: true, resp: withMessage{Data: contractCreated{}}},
		"/list_contracts":           {tag: contracts, summary: "Contracts, with filters.", req: listContractsRequest{}, resp: []store.Contract{}},
		"/enable_contract":          {tag: contracts, summary: "Enable a contract.", req: idRequest{}, resp: done},
		"/disable_contract":         {tag: contracts, summary: "Disable a contract.", req: idRequest{}, resp: done},
		"/delete_contract_files":    {tag: contracts, summary: "Remove files of a contract.", req: deleteFilesRequest{}, resp: done},
		"/get_contract_file":        {tag: contracts, summary: "The bytes of one file of a contract (a fincom route).", req: fileRequest{}, raw: storedTypes},
		"/get_contract_preview":     {tag: contracts, summary: "The contract rendered from its template as an HTML document.", req: previewRequest{}, resp: withMessage{Data: contractPreview{}}},
		"/insert_contract_template": {tag: contracts, summary: "Insert a contract template (sanitized HTML with placeholders).", req: templateRequest{}, resp: done},
		"/update_contract_template": {tag: contracts, summary: "Update a contract template.", req: templateRequest{}, resp: done},
		"/list_contract_templates":  {tag: contracts, summary: "The unit's contract templates.", resp: []store.Template{}},
		"/get_contract_template":    {tag: contracts, summary: "One contract template.", req: idRequest{}, resp: store.Template{}},
		"/accept_pix_automatico":    {tag: contracts, summary: "Record the payer's acceptance of PIX automático for a contract.", req: idRequest{}, resp: withMessage{Data: chargeAnswer{}}},

		"/insert_webhook":          {tag: webhooks, summary: "Register a webhook URL with its event types; answers the signing secret once.", req: webhookRequest{}, resp: withMessage{Data: webhookCreated{}}},
		"/list_webhooks":           {tag: webhooks, summary: "The unit's webhooks (without secrets).", resp: []store.Webhook{}},
		"/enable_webhook":          {tag: webhooks, summary: "Enable a webhook.", req: idRequest{}, resp: done},
		"/disable_webhook":         {tag: webhooks, summary: "Disable a webhook.", req: idRequest{}, resp: done},
		"/list_webhook_deliveries": {tag: webhooks, summary: "The last deliveries of the unit's webhooks, with attempts and answers.", resp: []store.Delivery{}},
		"/list_audit":              {tag: webhooks, summary: "The unit's audit log: who changed what, and when.", resp: []store.AuditEntry{}},

		"/insert_crm":  {tag: crm, summary: "Insert a CRM record for a contact.", req: crmRequest{}, resp: done},
		"/update_crm":  {tag: crm, summary: "Update a CRM record.", req: crmRequest{}, resp: done},
		"/list_crm":    {tag: crm, summary: "CRM records, with filters.", req: listCRMRequest{}, resp: []store.CRMRecord{}},
		"/enable_crm":  {tag: crm, summary: "Enable a CRM record.", req: idRequest{}, resp: done},
		"/disable_crm": {tag: crm, summary: "Disable a CRM record.", req: idRequest{}, resp: done},

		"/get_inventory_moviment":     {tag: inventory, summary: "Inventory movements, with filters.", req: movementsRequest{}, resp: []store.Movement{}},
		"/get_inventory_reports":      {tag: inventory, summary: "A year's inventory report by product and month.", req: reportRequest{}, resp: withMessage{Data: []store.ReportRow{}}},
		"/insert_inventory_movement":  {tag: inventory, summary: "Insert an entry or exit of stock; exits never go below zero unless the unit allows it.", req: movementRequest{}, resp: done},
		"/update_inventory_movement":  {tag: inventory, summary: "Update an inventory movement.", req: movementRequest{}, resp: done},
		"/enable_inventory_movement":  {tag: inventory, summary: "Enable an inventory movement.", req: idRequest{}, resp: done},
		"/disable_inventory_movement": {tag: inventory, summary: "Disable an inventory movement.", req: idRequest{}, resp: done},
		"/get_stock_balance":          {tag: inventory, summary: "Stock balances by product.", req: stockBalanceRequest{}, resp: []store.StockBalance{}},

		"/get_products_and_services":  {tag: registers, summary: "Products and services, with filters.", req: getProductsRequest{}, resp: []store.Product{}},
		"/list_stock_items_by_unit":   {tag: registers, summary: "The unit's stock items.", resp: okData{Data: []store.StockItem{}}},
		"/insert_product_or_service":  {tag: registers, summary: "Insert a product or service.", req: productRequest{}, resp: done},
		"/update_product_or_service":  {tag: registers, summary: "Update a product or service.", req: productRequest{}, resp: done},
		"/enable_product_or_service":  {tag: registers, summary: "Enable a product or service.", req: idRequest{}, resp: done},
		"/disable_product_or_service": {tag: registers, summary: "Disable a product or service.", req: idRequest{}, resp: done},
		"/get_contacts":               {tag: registers, summary: "Active contacts; search by name or CPF/CNPJ.", req: getContactsRequest{}, resp: []store.Contact{}},
		"/insert_contact":             {tag: registers, summary: "Insert a contact (CPF or CNPJ, alphanumeric CNPJ too).", req: contactRequest{}, resp: done},
		"/update_contact":             {tag: registers, summary: "Update a contact.", req: contactRequest{}, resp: done},
		"/enable_contact":             {tag: registers, summary: "Enable a contact.", req: idRequest{}, resp: done},
		"/disable_contact":            {tag: registers, summary: "Disable a contact.", req: idRequest{}, resp: done},
		"/get_categories":             {tag: registers, summary: "Categories of a module type.", req: listByTypeRequest{}, resp: []store.Category{}},
		"/list_group_categories":      {tag: registers, summary: "Category groups of a module type.", req: listByTypeRequest{}, resp: []store.CategoryGroup{}},
		"/insert_category":            {tag: registers, summary: "Insert a category.", req: categoryRequest{}, resp: done},
		"/update_category":            {tag: registers, summary: "Update a category.", req: categoryRequest{}, resp: done},
		"/enable_category":            {tag: registers, summary: "Enable a category.", req: idRequest{}, resp: done},
		"/disable_category":           {tag: registers, summary: "Disable a category.", req: idRequest{}, resp: done},
		"/get_projects":               {tag: registers, summary: "The unit's projects.", resp: []store.Project{}},
		"/insert_project":             {tag: registers, summary: "Insert a project.", req: projectRequest{}, resp: done},
		"/update_project":             {tag: registers, summary: "Update a project.", req: projectRequest{}, resp: done},
		"/enable_project":             {tag: registers, summary: "Enable a project.", req: idRequest{}, resp: done},
		"/disable_project":            {tag: registers, summary: "Disable a project.", req: idRequest{}, resp: done},
		"/get_banks":                  {tag: registers, summary: "Brazilian banks (the seed list), with search.", req: getBanksRequest{}, resp: []store.Bank{}},
		"/get_type_banks":             {tag: registers, summary: "Bank account types.", resp: []store.BankType{}},
		"/insert_bank_account":        {tag: registers, summary: "Insert a bank account.", req: bankAccountRequest{}, resp: done},
		"/update_bank_account":        {tag: registers, summary: "Update a bank account.", req: bankAccountRequest{}, resp: withMessage{Data: tokenData{}}},
		"/get_bank_account":           {tag: registers, summary: "One bank account by id_token, or all of the unit's.", req: getBankAccountRequest{}, resp: eitherOf{[]store.BankAccount{}, store.BankAccount{}}},
		"/enable_bank_account":        {tag: registers, summary: "Enable a bank account.", req: idRequest{}, resp: done},
		"/disable_bank_account":       {tag: registers, summary: "Disable a bank account.", req: idRequest{}, resp: done},
		"/list_payments_method":       {tag: registers, summary: "Payment methods.", resp: []store.PaymentMethod{}},
		"/get_users":                  {tag: registers, summary: "The domain's users.", resp: []store.User{}},

		"/_test/clock":          {tag: testMode, summary: "Freeze or advance the domain's clock; advancing runs the jobs that fall due on the way.", req: clockRequest{}, resp: clockAnswer{}},
		"/_test/outbox":         {tag: testMode, summary: "The e-mails queued and sent, without consuming them.", resp: []store.Mail{}},
		"/_test/job_runs":       {tag: testMode, summary: "The scheduled jobs' runs and what each created.", resp: []store.JobRun{}},
		"/_test/faults":         {tag: testMode, summary: "Set fault rules: by route, a probability of a fixed error or added latency.", req: faultsRequest{}, resp: faultsRequest{}},
		"/_test/journal":        {tag: testMode, summary: "The domain's last requests with their responses.", resp: []journalEntry{}},
		"/_test/webhooks":       {tag: testMode, summary: "Every webhook delivery of the domain, with payloads and signatures.", resp: []store.Delivery{}},
		"/_test/documents":      {tag: testMode, summary: "The generated documents: boletos, BR Codes, invoice XML and DANFE links.", resp: []store.Document{}},
		"/_test/snapshot":       {tag: testMode, summary: "Save the domain's current state under a name.", req: snapshotRequest{}, resp: withMessage{Data: map[string]string{}}},
		"/_test/authority":      {tag: testMode, summary: "Make the simulated tax authority authorize, reject (code and reason) or delay.", req: authorityMode{}, resp: authorityMode{}},
		"/_test/refuse_charge":  {tag: testMode, summary: "Refuse an order's open charge, as a card issuer would.", req: refuseRequest{}, resp: done},
		"/_test/reset":          {tag: testMode, summary: "Reset the domain to a named snapshot, or to empty (units, tokens and users kept).", req: resetRequest{}, resp: withMessage{Data: map[string]string{}}},
		"/_test/pay_charge":     {tag: testMode, summary: "Pay an order's charge: full, partial, over or late with fine and interest.", req: testPayRequest{}, resp: withMessage{Data: store.Payment{}}},
		"/_test/overdue_charge": {tag: testMode, summary: "Make an order's open charges overdue now.", req: idRequest{}, resp: withMessage{Data: map[string]int{}}},
		"/_test/domains":        {tag: testMode, summary: "Create a throw-away domain with one unit (optionally from a snapshot of another domain); answers its tokens.", req: testDomainsRequest{}, resp: testDomain{}},
	}
}

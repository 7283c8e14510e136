package portal

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/store"
)

// newOrderPage: GET /portal/new-order, the form of a sales order of one
// product or service: the customer, the item and its quantity, when it is
// paid, its category, how (a boleto's bank, the account that receives),
// in how many installments, its invoice, and whether its charge and
// invoice are made on saving.
func (s *Portal) newOrderPage(p *portalRequest, status int, form render.PortalOrderForm, field, fieldErr string) {
	body := render.PortalNewOrder{Form: form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	contacts, err := p.db.Contacts(p.ctx, p.unit.ID, store.ContactFilter{})
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, c := range contacts {
		body.Contacts = append(body.Contacts, render.PortalOption{Value: c.Token, Label: c.ContactName.String + " · " + formatRegister(c.Register)})
	}
	items, err := p.db.StockItems(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, it := range items {
		body.Items = append(body.Items, render.PortalOption{Value: it.ID, Label: it.Description + " · " + render.BRL(it.MonetaryValue.StringFixed(2))})
	}
	cats, err := p.db.Categories(p.ctx, p.unit.ID, "in", "")
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, c := range cats {
		body.Categories = append(body.Categories, render.PortalOption{Value: c.Token, Label: c.Category})
	}
	methods, err := p.db.PaymentMethods(p.ctx)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, m := range methods {
		if m.PaymentKey == "BOLETO" || m.PaymentKey == "PIX" || m.PaymentKey == "TRANSFER" {
			body.Methods = append(body.Methods, render.PortalOption{Value: m.Token, Label: m.Name})
		}
	}
	accounts, err := p.db.BankAccounts(p.ctx, p.unit.ID, true)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, a := range accounts {
		body.Accounts = append(body.Accounts, render.PortalOption{Value: a.Token, Label: accountName(a)})
	}
	if body.Form.Date == "" {
		body.Form.Date, body.Form.Quantity, body.Form.Installments = store.Today(p.db.Now()).ISO(), "1", "1"
	}
	errText := ""
	if fieldErr != "" {
		errText = "O pedido não foi salvo: " + fieldErr
	}
	p.page(s, status, "new_order", "Novo pedido de venda", "orders", body, "", errText)
}

// portalNewOrder: POST /portal/new-order saves the order, then, when
// asked, issues its charge and its invoice (the business code of
// /insert_sales_order, /generate_charge and /generate_nf), and shows its
// page, which says what each step did.
func (s *Portal) portalNewOrder(p *portalRequest) {
	v := func(k string) string { return strings.TrimSpace(p.r.PostFormValue(k)) }
	form := render.PortalOrderForm{Contact: v("contact"), Item: v("item"), Quantity: v("quantity"), Description: v("description"), Date: v("date"),
		Category: v("category"), Method: v("method"), Provider: v("provider"), Account: v("account"), Installments: v("installments"),
		Invoice: v("invoice"), Email: v("email"), Charge: v("charge") == "1", Issue: v("issue") == "1"}
	fail := func(field, words string) { s.newOrderPage(p, http.StatusBadRequest, form, field, words) }
	qty, err := decimal.NewFromString(strings.ReplaceAll(form.Quantity, ",", "."))
	if err != nil || !qty.IsPositive() || qty.GreaterThan(decimal.NewFromInt(999999999)) || qty.Exponent() < -3 {
		fail("quantity", "quantidade inválida: um número maior que zero, até 3 casas decimais.")
		return
	}
	date, err := store.ParseDateISO(form.Date)
	if err != nil {
		fail("date", "informe a data prevista de pagamento.")
		return
	}
	installments, err := strconv.Atoi(form.Installments)
	if form.Installments == "" {
		installments, err = 1, nil
	}
	if err != nil || installments < 1 || installments > 120 {
		fail("installments", "parcelas de 1 a 120.")
		return
	}
	var item *store.StockItem
	items, err := p.db.StockItems(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for i := range items {
		if items[i].ID == form.Item {
			item = &items[i]
		}
	}
	if item == nil {
		fail("item", "escolha um produto ou serviço ativo da unidade.")
		return
	}
	key, err := p.db.PaymentKey(p.ctx, form.Method)
	if err != nil {
		fail("method", "escolha a forma de pagamento.")
		return
	}
	prof, err := p.db.UnitProfile(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	value := store.LineTotal(store.Decimal{Decimal: qty}, item.MonetaryValue)
	f := store.SalesOrderFields{ContactToken: form.Contact, CategoryToken: form.Category, PaymentTypeToken: form.Method, BankAccountToken: form.Account,
		Description: form.Description, Value: value, Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)}, EstimatedPaymentDate: date.ISO(),
		InstallmentCredit: 1, Installments: installments, InAutomation: true, NFKind: form.Invoice, NotifyEmailCharge: form.Email, NotifyEmailNF: form.Email,
		TipoDocumento: "1", FinalidadeEmissao: "1", ConsumidorFinal: "1", PresencaComprador: "2", FreightMode: 9, LocalDestino: 1}
	if f.Description == "" {
		f.Description = item.Description
	}
	if form.Invoice == "nfce" {
		f.PresencaComprador = "1"
	}
	switch key {
	case "BOLETO":
		f.ProviderBank = form.Provider
	case "PIX":
		if f.PixKey = prof.PixKey; f.PixKey == "" {
			fail("method", "a unidade não tem chave PIX: informe-a no perfil fiscal (fincom unit set --pix-key) ou escolha outra forma.")
			return
		}
	case "TRANSFER":
		f.BankAccountPaymentToken = form.Account
	}
	if item.Type == "service" {
		f.StockItemToken, f.Quantity = item.ID, store.Decimal{Decimal: qty}
		if form.Invoice != "" {
			fail("invoice", "NF-e e NFC-e são de produtos: um serviço tem nota de serviço, emitida pela API (/generate_nf com nf_kind nfsen).")
			return
		}
	} else {
		f.Products = []store.OrderProduct{{Token: item.ID, Quantity: store.Decimal{Decimal: qty}}}
	}
	token, _, err := p.db.InsertSalesOrder(p.ctx, p.unit.ID, f)
	if err != nil {
		var ref *store.RefError
		if errors.As(err, &ref) {
			field := map[string]string{"pv.id_token_contact": "contact", "faturamento.id_token_category": "category",
				"faturamento.id_token_bank_account": "account", "charge.bankAccountPayment": "account", "charge.payment_type": "method"}[ref.Field]
			fail(cmp.Or(field, "contact"), "escolha um registro ativo da unidade.")
			return
		}
		if errors.Is(err, store.ErrMoneyRange) {
			fail("quantity", "o valor do pedido passa do limite.")
			return
		}
		s.portalFailed(p, err)
		return
	}
	done := "criado"
	if form.Charge {
		if err := s.Billing.IssueCharges(p.ctx, p.db, p.unit.ID, token); err != nil {
			_, text := s.routeError("/generate_charge", err)
			s.portalOrderPage(p, token, "Pedido salvo.", "A cobrança não foi gerada: "+text, http.StatusOK)
			return
		}
		done = "criado_cobrado"
	}
	if form.Issue && form.Invoice != "" {
		if _, err := s.Invoices.Issue(p.ctx, p.db, p.unit.ID, token); err != nil {
			_, text := s.routeError("/generate_nf", err)
			s.portalOrderPage(p, token, "Pedido salvo.", "A nota não foi emitida: "+text, http.StatusOK)
			return
		}
		done += "_nota"
	}
	http.Redirect(p.w, p.r, "/portal/orders/"+url.PathEscape(token)+"?unit="+url.QueryEscape(p.unit.Token)+"&feito="+done, http.StatusSeeOther)
}

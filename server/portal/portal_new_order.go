package portal

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/fiscal"
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
	if body.Form.Key == "" {
		// A new form, a new key; a form answered again keeps its own.
		body.Form.Key = store.NewSecret(16)
	}
	if body.Form.Date == "" {
		body.Form.Date, body.Form.Installments = store.Today(p.db.Now()).ISO(), "1"
		body.Form.ISSRate = "5"
		body.Form.Lines = make([]render.PortalOrderLine, maxOrderLines)
		body.Form.Lines[0].Quantity = "1"
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
	form := render.PortalOrderForm{Contact: v("contact"), Description: v("description"), Date: v("date"),
		Category: v("category"), Method: v("method"), Provider: v("provider"), Account: v("account"), Installments: v("installments"),
		Invoice: v("invoice"), Email: v("email"), Charge: v("charge") == "1", Issue: v("issue") == "1", Recurrence: v("recurrence") == "1",
		ServiceCode: v("service_code"), ISSRate: v("iss_rate"), Key: v("form_key")}
	items, qtys := p.r.PostForm["item"], p.r.PostForm["quantity"]
	for i := range maxOrderLines {
		var l render.PortalOrderLine
		if i < len(items) {
			l.Item = strings.TrimSpace(items[i])
		}
		if i < len(qtys) {
			l.Quantity = strings.TrimSpace(qtys[i])
		}
		form.Lines = append(form.Lines, l)
	}
	fail := func(field, words string) { s.newOrderPage(p, http.StatusBadRequest, form, field, words) }
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
	stock, err := p.db.StockItems(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	lines, field, words := orderLines(form.Lines, stock)
	if field != "" {
		fail(field, words)
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
	var value decimal.Decimal
	for _, l := range lines {
		value = value.Add(store.LineTotal(store.Decimal{Decimal: l.qty}, l.item.MonetaryValue).Decimal)
	}
	if !store.InMoneyRange(value) {
		fail("quantity-1", "o valor do pedido passa do limite.")
		return
	}
	f := store.SalesOrderFields{ContactToken: form.Contact, CategoryToken: form.Category, PaymentTypeToken: form.Method, BankAccountToken: form.Account,
		Description: form.Description, Value: store.NewMoney(value), Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)}, EstimatedPaymentDate: date.ISO(),
		InstallmentCredit: 1, Installments: installments, InAutomation: true, NFKind: form.Invoice, NotifyEmailCharge: form.Email, NotifyEmailNF: form.Email,
		TipoDocumento: "1", FinalidadeEmissao: "1", ConsumidorFinal: "1", PresencaComprador: "2", FreightMode: 9, LocalDestino: 1,
		Recurrence: form.Recurrence}
	if f.Description == "" {
		f.Description = lines[0].item.Description
		if len(lines) > 1 {
			f.Description += " e outros " + strconv.Itoa(len(lines)-1) + " itens"
		}
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
	if service := lines[0].item; service.Type == "service" {
		f.StockItemToken, f.Quantity = service.ID, store.Decimal{Decimal: lines[0].qty}
		switch form.Invoice {
		case "nfe", "nfce":
			fail("invoice", "NF-e e NFC-e são de produtos: um serviço tem NFS-e.")
			return
		case fiscal.NFSeN:
			if field, words := serviceTaxes(&f, form, p.unit.CityIBGE); field != "" {
				fail(field, words)
				return
			}
		}
	} else {
		if form.Invoice == fiscal.NFSeN {
			fail("invoice", "a NFS-e é de serviços: produtos têm NF-e ou NFC-e.")
			return
		}
		for _, l := range lines {
			f.Products = append(f.Products, store.OrderProduct{Token: l.item.ID, Quantity: store.Decimal{Decimal: l.qty}})
		}
	}
	// The form always carries its key; a send without one (a script of
	// its own) is taken as it comes.
	if form.Key != "" && !formKeyPattern.MatchString(form.Key) {
		form.Key = "" // a key of no form of ours: the page draws a new one
		fail("contact", "o formulário expirou: confira os dados e salve de novo.")
		return
	}
	token, _, made, err := p.db.InsertSalesOrderOnce(p.ctx, p.unit.ID, form.Key, f)
	if err == nil && !made {
		// The same form sent again (a reload, a double click): the order
		// it made is shown, nothing is made twice.
		http.Redirect(p.w, p.r, "/portal/orders/"+url.PathEscape(token)+"?unit="+url.QueryEscape(p.unit.Token)+"&feito=repetido", http.StatusSeeOther)
		return
	}
	if err != nil {
		var ref *store.RefError
		if errors.As(err, &ref) {
			field := map[string]string{"pv.id_token_contact": "contact", "faturamento.id_token_category": "category",
				"faturamento.id_token_bank_account": "account", "charge.bankAccountPayment": "account", "charge.payment_type": "method"}[ref.Field]
			fail(cmp.Or(field, "contact"), "escolha um registro ativo da unidade.")
			return
		}
		if errors.Is(err, store.ErrMoneyRange) {
			fail("quantity-1", "o valor do pedido passa do limite.")
			return
		}
		s.portalFailed(p, err)
		return
	}
	done := "criado"
	if form.Charge {
		if err := s.Billing.IssueCharges(p.ctx, p.db, p.unit.ID, token); err != nil {
			_, text := s.routeError("/generate_charge", err)
			s.leaveNotice(p, token, portalOrderFailed["criado_sem_cobranca"]+" "+text)
			done = "criado_sem_cobranca"
		} else {
			done = "criado_cobrado"
		}
	}
	if form.Issue && form.Invoice != "" && done != "criado_sem_cobranca" {
		if _, err := s.Invoices.Issue(p.ctx, p.db, p.unit.ID, token); err != nil {
			_, text := s.routeError("/generate_nf", err)
			s.leaveNotice(p, token, portalOrderFailed[done+"_sem_nota"]+" "+text)
			done += "_sem_nota"
		} else {
			done += "_nota"
		}
	}
	// Saved, whatever followed: a redirect, so that a reload repeats
	// nothing; what failed is said by the page it leads to.
	http.Redirect(p.w, p.r, "/portal/orders/"+url.PathEscape(token)+"?unit="+url.QueryEscape(p.unit.Token)+"&feito="+done, http.StatusSeeOther)
}

// formSentAgain is the notice of a form sent again whose key made its
// record already.
const formSentAgain = "Este formulário já tinha sido enviado: o cadastro foi feito uma vez só, nada foi feito de novo."

// formKeyOf is the request's one-time form key; one of no form of ours
// is none (the record is made as a script's send would make it).
func formKeyOf(r *http.Request) string {
	if k := r.PostFormValue("form_key"); formKeyPattern.MatchString(k) {
		return k
	}
	return ""
}

// madeWord is the ?criado= of a list's page after its form was sent: 1
// made, repetido a form sent again that made nothing.
func madeWord(made bool) string {
	if made {
		return "1"
	}
	return "repetido"
}

// spendFormKey spends the request's one-time form key (form_key) for what
// the form does, reporting whether it was fresh. A send without one (a
// script of its own) is taken as it comes; a key of no form of ours is
// refused as spent.
func (s *Portal) spendFormKey(p *portalRequest, what string) (bool, error) {
	key := p.r.PostFormValue("form_key")
	switch {
	case key == "":
		return true, nil
	case !formKeyPattern.MatchString(key):
		return false, nil
	}
	return p.db.SpendFormKey(p.ctx, p.unit.ID, key, what)
}

// formKeyPattern is a one-time key as the form draws it (16 random bytes
// in hex).
var formKeyPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// maxOrderLines is how many item lines the new order's form has.
const maxOrderLines = 6

// orderLine is a line of the new order's form, read.
type orderLine struct {
	item *store.StockItem
	qty  decimal.Decimal
}

// orderLines reads the form's filled lines against the unit's stock
// items: the products sold, or one service (an order's service is one
// item; its NFS-e states it); or the field at fault and why.
func orderLines(form []render.PortalOrderLine, stock []store.StockItem) ([]orderLine, string, string) {
	var out []orderLine
	for i, l := range form {
		n := strconv.Itoa(i + 1)
		if l.Item == "" {
			if l.Quantity != "" && l.Quantity != "1" {
				return nil, "item-" + n, "escolha o produto ou serviço desta linha."
			}
			continue
		}
		var item *store.StockItem
		for j := range stock {
			if stock[j].ID == l.Item {
				item = &stock[j]
			}
		}
		if item == nil {
			return nil, "item-" + n, "escolha um produto ou serviço ativo da unidade."
		}
		qty, err := decimal.NewFromString(strings.ReplaceAll(cmp.Or(l.Quantity, "1"), ",", "."))
		if err != nil || !qty.IsPositive() || qty.GreaterThan(decimal.NewFromInt(999999999)) || qty.Exponent() < -3 {
			return nil, "quantity-" + n, "quantidade inválida: um número maior que zero, até 3 casas decimais."
		}
		if len(out) > 0 && (item.Type == "service" || out[0].item.Type == "service") {
			return nil, "item-" + n, "um pedido é de produtos ou de um único serviço: faça outro pedido para este item."
		}
		out = append(out, orderLine{item, qty})
	}
	if len(out) == 0 {
		return nil, "item-1", "escolha ao menos um produto ou serviço."
	}
	return out, "", ""
}

// serviceTaxes sets a service order's NFS-e data from the form: its
// service code (the LC 116 list item, as 01.07), its ISS rate, and the
// amounts they make (ISS on the whole value, no retention), rendered where
// the unit is; or the field at fault and why.
func serviceTaxes(f *store.SalesOrderFields, form render.PortalOrderForm, unitCity string) (string, string) {
	code := form.ServiceCode
	if len(code) == 4 && !strings.Contains(code, ".") {
		code = code[:2] + "." + code[2:]
	}
	if len(code) != 5 || code[2] != '.' || brdoc.Digits(code) != code[:2]+code[3:] {
		return "service_code", "informe o item da lista de serviços (LC 116), como 01.07."
	}
	rate, err := decimal.NewFromString(strings.ReplaceAll(form.ISSRate, ",", "."))
	if err != nil || rate.LessThan(decimal.NewFromInt(2)) || rate.GreaterThan(decimal.NewFromInt(5)) || rate.Exponent() < -2 {
		return "iss_rate", "alíquota do ISS de 2% a 5% (o piso e o teto da lei complementar 116), como 5 ou 2,5."
	}
	iss := f.Value.Mul(rate).Div(decimal.NewFromInt(100)).Round(2)
	f.ServiceID, f.ServiceCod, f.ServiceLocation = code, code, unitCity
	f.Taxes.TaxServiceGrossAmount, f.Taxes.TaxServiceBaseAmount = f.Value, f.Value
	f.Taxes.TaxIssRatePercent, f.Taxes.TaxIssAmount = store.NewMoney(rate), store.NewMoney(iss)
	f.Taxes.NetReceivableAmount = f.Value
	return "", ""
}

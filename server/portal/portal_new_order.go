package portal

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/fiscal"
	"fincom/server/problem"
	"fincom/server/sales"
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
		body.Contacts = append(body.Contacts, render.PortalOption{Value: c.Token, Label: c.ContactName.String + " · " + brdoc.FormatRegister(c.Register)})
	}
	items, err := p.db.StockItems(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, it := range items {
		// The option's label holds the GTIN: a browser's list finds it
		// by a scanned or typed bar code too.
		c := render.PortalItemChoice{Text: itemText(it), Price: it.MonetaryValue.StringFixed(2), PriceBR: render.BRL(it.MonetaryValue.StringFixed(2)), Kind: it.Type}
		if it.GTIN != "" {
			c.PriceBR += " · GTIN " + it.GTIN
		}
		body.Items = append(body.Items, c)
	}
	body.FreightModes = freightModes
	if body.Banks, err = s.slotBanks(p); err != nil {
		s.portalFailed(p, err)
		return
	}
	cats, err := p.db.Categories(p.ctx, p.unit.ID, "in", "")
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	// A sale's category: services' first (the form starts empty), goods'
	// once a product line is chosen (the script; sales.Create decides
	// the same for a form sent without one).
	var services, goods string
	for _, c := range cats {
		o := render.PortalOption{Value: c.Token, Label: c.Category}
		switch c.Group() {
		case store.GroupServices:
			o.Data, services = "services", cmp.Or(services, c.Token)
		case store.GroupGoods:
			o.Data, goods = "goods", cmp.Or(goods, c.Token)
		}
		body.Categories = append(body.Categories, o)
	}
	if body.Form.Category == "" && body.Form.Date == "" {
		body.Form.Category = services
		if len(body.Form.Lines) > 0 && body.Form.Lines[0].Item != "" {
			if it := itemOf(body.Form.Lines[0].Item, items); it != nil && it.Type == "product" {
				body.Form.Category = goods
			}
		}
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
		body.Form.ISSRate, body.Form.FreightMode = "5", "9"
		body.Form.Lines = make([]render.PortalOrderLine, orderLinesShown)
		body.Form.Lines[0].Quantity = "1"
	}
	// Without the page's script, empty lines to fill; with it, a line
	// is added as needed.
	for len(body.Form.Lines) < orderLinesShown {
		body.Form.Lines = append(body.Form.Lines, render.PortalOrderLine{})
	}
	errText := ""
	if fieldErr != "" {
		errText = "O pedido não foi salvo: " + fieldErr
	}
	p.page(s, status, "new_order", "Novo pedido de venda", "orders", body, "", errText)
}

// portalNewOrder: POST /portal/new-order reads the form into an order
// and makes it as /insert_sales_order does (sales.Create: its rules, its
// value from the lines at the catalogue's prices, the unit's PIX key, a
// service's ISS from its rate), with its charge and its invoice when
// asked, and shows its page, which says what each step did.
func (s *Portal) portalNewOrder(p *portalRequest) {
	v := func(k string) string { return strings.TrimSpace(p.r.PostFormValue(k)) }
	form := render.PortalOrderForm{Contact: v("contact"), Description: v("description"), Date: v("date"),
		Category: v("category"), Method: v("method"), Provider: v("provider"), Account: v("account"), Installments: v("installments"),
		Invoice: v("invoice"), Email: v("email"), Charge: v("charge") == "1", Issue: v("issue") == "1", Recurrence: v("recurrence") == "1",
		ServiceCode: v("service_code"), ISSRate: v("iss_rate"), Key: v("form_key"), FreightMode: cmp.Or(v("freight_mode"), "9"),
		FreightTotal: v("freight_total")}
	items, qtys := p.r.PostForm["item"], p.r.PostForm["quantity"]
	for i := range min(max(len(items), len(qtys)), maxOrderLines+1) {
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
	if len(form.Lines) > maxOrderLines {
		form.Lines = form.Lines[:maxOrderLines]
		fail("item-1", "um pedido tem no máximo "+strconv.Itoa(maxOrderLines)+" linhas.")
		return
	}
	if v("more") == "1" {
		// "Mais linhas" without the page's script: the form again, as
		// typed, with more empty lines.
		for range orderLinesShown {
			if len(form.Lines) < maxOrderLines {
				form.Lines = append(form.Lines, render.PortalOrderLine{})
			}
		}
		s.newOrderPage(p, http.StatusOK, form, "", "")
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
	if err != nil {
		fail("installments", installmentWords)
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
		s.portalFailed(p, err)
		return
	}
	o := sales.Order{Priced: true, UnitDefaults: true, Charge: form.Charge, Issue: form.Issue, FormKey: form.Key,
		SalesOrderFields: store.SalesOrderFields{ContactToken: form.Contact, CategoryToken: form.Category, PaymentTypeToken: form.Method,
			BankAccountToken: form.Account, Description: form.Description, Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)},
			EstimatedPaymentDate: date.ISO(), InstallmentCredit: 1, Installments: installments, InAutomation: true, NFKind: form.Invoice,
			NotifyEmailCharge: form.Email, NotifyEmailNF: form.Email, Recurrence: form.Recurrence,
			// The invoice the counter or the office issues: an exit to a
			// final consumer, sold online (in person for an NFC-e), no freight.
			TipoDocumento: "1", FinalidadeEmissao: "1", ConsumidorFinal: "1", PresencaComprador: "2", FreightMode: 9, LocalDestino: 1}}
	if o.FreightMode, o.FreightTotal, field, words = freightOf(form); field != "" {
		fail(field, words)
		return
	}
	if form.Invoice == "nfce" {
		o.PresencaComprador = "1"
	}
	if key == "BOLETO" {
		o.ProviderBank = form.Provider
	}
	if lines[0].item.Type == "service" {
		o.StockItemToken, o.Quantity = lines[0].item.ID, store.Decimal{Decimal: lines[0].qty}
		if form.Invoice == fiscal.NFSeN {
			code, rate, field, words := serviceTerms(form)
			if field != "" {
				fail(field, words)
				return
			}
			o.ServiceID, o.ServiceCod, o.ISSRate = code, code, &rate
		}
	} else {
		for _, l := range lines {
			o.Products = append(o.Products, store.OrderProduct{Token: l.item.ID, Quantity: store.Decimal{Decimal: l.qty}})
		}
	}
	// The form always carries its key; a send without one (a script of
	// its own) is taken as it comes.
	if form.Key != "" && !formKeyPattern.MatchString(form.Key) {
		form.Key = "" // a key of no form of ours: the page draws a new one
		fail("contact", "o formulário expirou: confira os dados e salve de novo.")
		return
	}
	c, err := s.sales().Create(p.ctx, p.db, p.unit, p.role, o)
	switch {
	case errors.Is(err, sales.ErrMayNot):
		p.page(s, http.StatusForbidden, "units", "Sem permissão", "", []render.PortalUnit{}, "", roleRefusal(p.role))
		return
	case err != nil:
		if field, words := orderRefusal(err); field != "" {
			fail(field, words)
			return
		}
		s.portalFailed(p, err)
		return
	case !c.Made:
		// The same form sent again (a reload, a double click): the order
		// it made is shown, nothing is made twice.
		http.Redirect(p.w, p.r, "/portal/orders/"+url.PathEscape(c.Token)+"?unit="+url.QueryEscape(p.unit.Token)+"&feito=repetido", http.StatusSeeOther)
		return
	}
	done := "criado"
	if form.Charge {
		done = "criado_cobrado"
		if c.ChargeErr != nil {
			_, text := s.routeError("/generate_charge", c.ChargeErr)
			s.leaveNotice(p, c.Token, portalOrderFailed["criado_sem_cobranca"]+" "+text)
			done = "criado_sem_cobranca"
		}
	}
	if form.Issue && form.Invoice != "" && c.ChargeErr == nil {
		if c.IssueErr != nil {
			_, text := s.routeError("/generate_nf", c.IssueErr)
			s.leaveNotice(p, c.Token, portalOrderFailed[done+"_sem_nota"]+" "+text)
			done += "_sem_nota"
		} else {
			done += "_nota"
		}
	}
	// Saved, whatever followed: a redirect, so that a reload repeats
	// nothing; what failed is said by the page it leads to.
	http.Redirect(p.w, p.r, "/portal/orders/"+url.PathEscape(c.Token)+"?unit="+url.QueryEscape(p.unit.Token)+"&feito="+done, http.StatusSeeOther)
}

// installmentWords is the form's refusal of its installments.
const installmentWords = "parcelas de 1 a 999."

// orderMissing are the form's field and words for each field sales
// finds missing in an order the form made.
var orderMissing = map[string][2]string{
	"charge.charge_pix_key":              {"method", "a unidade não tem chave PIX: um proprietário a informa em Configurações da unidade, Chave PIX; ou escolha outra forma."},
	"pv.products":                        {"invoice", "NF-e e NFC-e são de produtos: um serviço tem NFS-e."},
	"pv.id_token_stock_item":             {"invoice", "a NFS-e é de serviços: produtos têm NF-e ou NFC-e."},
	"nf.service_id_token":                {"service_code", "informe o item da lista de serviços (LC 116), como 01.07."},
	"charge.bankAccountPayment":          {"account", "escolha a conta que recebe a transferência."},
	"faturamento.estimated_payment_date": {"date", "informe a data prevista de pagamento."},
	"pv.description":                     {"description", "informe a descrição do pedido."},
}

// orderRefusal is the form's field and words for sales' refusal of the
// order, or "" when the form has none for it.
func orderRefusal(err error) (string, string) {
	var ref *store.RefError
	switch {
	case errors.As(err, &ref):
		field := map[string]string{"pv.id_token_contact": "contact", "faturamento.id_token_category": "category",
			"faturamento.id_token_bank_account": "account", "charge.bankAccountPayment": "account", "charge.payment_type": "method"}[ref.Field]
		return cmp.Or(field, "contact"), "escolha um registro ativo da unidade."
	case errors.Is(err, store.ErrMoneyRange):
		return "quantity-1", "o valor do pedido passa do limite."
	case errors.Is(err, store.ErrInvalidValue):
		return "installments", installmentWords
	case errors.Is(err, sales.ErrISSRate):
		return "iss_rate", "alíquota do ISS de 2% a 5% (o piso e o teto da lei complementar 116), como 5 ou 2,5."
	case sales.NotifyEmailOf(err) != "":
		return "email", "e-mail inválido."
	}
	for _, f := range problem.MissingFieldsOf(err) {
		if w, ok := orderMissing[f]; ok {
			return w[0], w[1]
		}
	}
	return "", ""
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

// The new order's form shows orderLinesShown lines to fill (more on
// asking, or added by the page's script), up to maxOrderLines.
const (
	orderLinesShown = 10
	maxOrderLines   = 300
)

// freightModes are the NF-e's modFrete as the office chooses one.
var freightModes = []render.PortalOption{{Value: "9", Label: "Sem frete"}, {Value: "0", Label: "Por conta do emitente (CIF)"},
	{Value: "1", Label: "Por conta do destinatário (FOB)"}, {Value: "2", Label: "Por conta de terceiros"},
	{Value: "3", Label: "Transporte próprio do emitente"}, {Value: "4", Label: "Transporte próprio do destinatário"}}

// freightOf reads the form's freight: its mode (one of freightModes) and
// total (as Brazilians write it; none without freight); or the field at
// fault and why.
func freightOf(form render.PortalOrderForm) (int, store.Money, string, string) {
	mode, err := strconv.Atoi(form.FreightMode)
	if err != nil || !slices.ContainsFunc(freightModes, func(o render.PortalOption) bool { return o.Value == form.FreightMode }) {
		return 0, store.Money{}, "freight_mode", "escolha a modalidade do frete da lista."
	}
	total, err := amountBR(form.FreightTotal)
	switch {
	case err != nil || (total != nil && (total.IsNegative() || !store.InMoneyRange(total.Decimal))):
		return 0, store.Money{}, "freight_total", "valor do frete inválido: como 25,90."
	case total == nil:
		return mode, store.Money{}, "", ""
	case mode == 9 && !total.IsZero():
		return 0, store.Money{}, "freight_mode", "há valor de frete: escolha a modalidade (ou apague o valor)."
	}
	return mode, *total, "", ""
}

// itemText is how a line names a product or service: its code and name.
func itemText(it store.StockItem) string {
	if it.Code == "" {
		return it.Description
	}
	return it.Code + " · " + it.Description
}

// itemOf is the stock item a line's text names: its token (a form of
// before), its text as offered, its code, its GTIN, or its name (case and
// accents aside), or the only one whose name holds the text; nil for none
// or several.
func itemOf(text string, stock []store.StockItem) *store.StockItem {
	folded := store.Fold(strings.TrimSpace(text))
	if folded == "" {
		return nil
	}
	for i, it := range stock {
		if it.ID == text || store.Fold(itemText(it)) == folded || (it.Code != "" && store.Fold(it.Code) == folded) || store.Fold(it.Description) == folded ||
			(it.GTIN != "" && it.GTIN == strings.TrimSpace(text)) {
			return &stock[i]
		}
	}
	var found *store.StockItem
	for i, it := range stock {
		if strings.Contains(store.Fold(itemText(it)), folded) {
			if found != nil {
				return nil
			}
			found = &stock[i]
		}
	}
	return found
}

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
		item := itemOf(l.Item, stock)
		if item == nil {
			return nil, "item-" + n, "escolha um produto ou serviço ativo da unidade da lista (digite parte do nome ou o código)."
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

// serviceTerms reads a service order's NFS-e terms from the form: its
// service code (the LC 116 list item, as 01.07 or 0107) and its ISS rate
// (5 or 2,5), which sales bounds; or the field at fault and why.
func serviceTerms(form render.PortalOrderForm) (string, decimal.Decimal, string, string) {
	code := form.ServiceCode
	if len(code) == 4 && !strings.Contains(code, ".") {
		code = code[:2] + "." + code[2:]
	}
	if len(code) != 5 || code[2] != '.' || brdoc.Digits(code) != code[:2]+code[3:] {
		return "", decimal.Decimal{}, "service_code", "informe o item da lista de serviços (LC 116), como 01.07."
	}
	rate, err := decimal.NewFromString(strings.ReplaceAll(form.ISSRate, ",", "."))
	if err != nil {
		return "", decimal.Decimal{}, "iss_rate", "alíquota do ISS de 2% a 5% (o piso e o teto da lei complementar 116), como 5 ou 2,5."
	}
	return code, rate, "", ""
}

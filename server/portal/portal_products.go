package portal

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/fiscal/reform"
	"fincom/server/problem"
	"fincom/server/registers"
	"fincom/store"
)

// productsPage: GET /portal/products, the unit's products and services
// with their fiscal codes (searched by description) and the form of a
// new one.
func (s *Portal) productsPage(p *portalRequest, status int, form render.PortalProductForm, field, fieldErr, notice string) {
	search := strings.TrimSpace(p.r.URL.Query().Get("busca"))
	items, err := p.db.StockItems(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	if form.Key == "" {
		form.Key = store.NewSecret(16)
	}
	body := render.PortalProducts{Search: search, Form: form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	var found []store.StockItem
	for _, it := range items {
		if matches(search, it.Description, it.Code) {
			found = append(found, it)
		}
	}
	if s.exportable(p, "", "esta lista", "produtos", func() (render.Table, error) {
		t := render.Table{Name: "Produtos e serviços", Columns: []render.Column{{Title: "Código", Kind: render.ColText}, {Title: "Descrição", Kind: render.ColText},
			{Title: "Tipo", Kind: render.ColText}, {Title: "Preço", Kind: render.ColMoney}, {Title: "Unidade", Kind: render.ColText},
			{Title: "NCM", Kind: render.ColText}, {Title: "CFOP", Kind: render.ColText}, {Title: "CST IBS/CBS", Kind: render.ColText},
			{Title: "Classificação tributária (cClassTrib)", Kind: render.ColText}}}
		for _, it := range found {
			t.Rows = append(t.Rows, []string{it.Code, it.Description, map[string]string{"product": "Produto", "service": "Serviço"}[it.Type],
				it.MonetaryValue.StringFixed(2), it.Unit.String, formatNCM(it.NCM.String), it.CFOP.String, it.IBSCBSCST, it.IBSCBSClass})
		}
		return t, nil
	}) {
		return
	}
	if s.exportable(p, "estoque", "os movimentos de estoque", "movimentos-estoque", func() (render.Table, error) {
		moves, err := p.db.Movements(p.ctx, p.unit.ID, store.MovementFilter{})
		t := render.Table{Name: "Movimentos de estoque", Columns: []render.Column{{Title: "Data", Kind: render.ColDate}, {Title: "Tipo", Kind: render.ColText},
			{Title: "Produto", Kind: render.ColText}, {Title: "Quantidade", Kind: render.ColNum}, {Title: "Unidade", Kind: render.ColText},
			{Title: "Valor unitário", Kind: render.ColMoney}, {Title: "Valor total", Kind: render.ColMoney}, {Title: "Lote", Kind: render.ColText},
			{Title: "Validade", Kind: render.ColDate}, {Title: "Contato", Kind: render.ColText}}}
		for _, m := range moves {
			t.Rows = append(t.Rows, []string{m.DateInOut, map[string]string{"in": "Entrada", "out": "Saída"}[m.Type], m.Product, m.Quantity.String(),
				m.Unit.String, m.UnitaryValue.StringFixed(2), m.TotalValue.StringFixed(2), m.Lote.String, m.ValidationDate.String, m.ContactName.String})
		}
		return t, err
	}) {
		return
	}
	found, body.Pager = paginate(p, found)
	for _, it := range found {
		body.Products = append(body.Products, render.PortalProductRow{Token: it.ID, Code: it.Code, Description: it.Description,
			Kind: map[string]string{"product": "Produto", "service": "Serviço"}[it.Type], Price: render.BRL(it.MonetaryValue.StringFixed(2)),
			Unit: it.Unit.String, NCM: formatNCM(it.NCM.String), CFOP: it.CFOP.String, Class: it.IBSCBSClass})
	}
	errText := ""
	if fieldErr != "" {
		errText = "O cadastro não foi feito: " + fieldErr
	}
	p.page(s, status, "products", "Produtos e serviços", "products", body, notice, errText)
}

// formatNCM writes an NCM as the tables print it: 4820.20.00.
func formatNCM(n string) string {
	if len(n) != 8 {
		return n
	}
	return n[:4] + "." + n[4:6] + "." + n[6:]
}

// productRefusals say in Portuguese which field of the form is at fault,
// and why.
var productRefusals = refusals{
	{registers.ErrInvalidProductType, "type", "escolha produto ou serviço."},
	{registers.ErrInvalidUsageType, "usage_type", "tipo do item inválido: use 00 a 10 ou 99."},
	{registers.ErrInvalidNCM, "ncm", "NCM inválido: use os 8 dígitos."},
	{registers.ErrInvalidCFOP, "cfop", "CFOP inválido: 4 dígitos, o primeiro de 1 a 7."},
	{registers.ErrInvalidUnit, "unit", "unidade com até 6 caracteres."},
	{registers.ErrInvalidGTIN, "gtin", "GTIN (código de barras) inválido: 8, 12, 13 ou 14 dígitos com o dígito verificador, só para produtos."},
	{store.ErrMoneyRange, "price", "preço inválido: use um valor como 24,90."},
	{store.ErrDuplicate, "code", "esse código já é de outro produto da unidade."},
	{registers.ErrInvalidIBSCBS, "ibs_cbs_class", "código da reforma tributária inválido."},
}

// productRefusal is the field and the Portuguese words of a refusal; a
// tax reform code's reason is the table's own.
func productRefusal(err error) (string, string) {
	var pr *problem.Problem
	if errors.As(err, &pr) {
		if d, ok := pr.Details.(registers.IBSCBSProblem); ok {
			return d.Field, "código da reforma tributária inválido (" + d.Message + ")."
		}
	}
	return productRefusals.find(err)
}

// productForm is the product form as typed.
func productForm(r *http.Request) render.PortalProductForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	return render.PortalProductForm{Type: v("type"), Description: v("description"), Code: v("code"), Price: v("price"), Unit: strings.ToUpper(v("unit")),
		NCM: v("ncm"), CFOP: v("cfop"), Usage: v("usage_type"), CST: v("ibs_cbs_cst"), Class: v("ibs_cbs_class"), Operation: v("ibs_cbs_operation"),
		GTIN: brdoc.Digits(v("gtin")), Key: formKeyOf(r)}
}

// productFormOf is a stored product as its form shows it.
func productFormOf(f store.ProductFields) render.PortalProductForm {
	return render.PortalProductForm{Type: f.Type, Description: f.Description, Code: f.Code, Price: strings.TrimPrefix(render.BRL(f.MonetaryValue.StringFixed(2)), "R$ "),
		Unit: f.Unit, NCM: formatNCM(f.NCM), CFOP: f.CFOP, Usage: f.UsageType, CST: f.IBSCBSCST, Class: f.IBSCBSClass, Operation: f.IBSCBSOperation,
		GTIN: f.GTIN}
}

// applyProductForm writes the form onto f and holds the result to the
// rules /insert_product_or_service and /update_product_or_service hold a
// product to. An empty code keeps the stored one (at insert: the unit's
// next number).
func applyProductForm(form render.PortalProductForm, f *store.ProductFields, table *reform.Table) error {
	switch {
	case form.Description == "":
		return fieldRefusal{"description", "informe a descrição."}
	case len([]rune(form.Description)) > 255:
		return fieldRefusal{"description", "descrição com até 255 caracteres."}
	case len([]rune(form.Code)) > 60:
		return fieldRefusal{"code", "código com até 60 caracteres."}
	}
	price, err := amountBR(form.Price)
	switch {
	case err != nil:
		return fieldRefusal{"price", "preço inválido: use um valor como 24,90."}
	case price != nil && price.IsNegative():
		return fieldRefusal{"price", "o preço não pode ser negativo."}
	case price != nil:
		f.MonetaryValue = *price
	default:
		f.MonetaryValue = store.Money{}
	}
	f.Description, f.Type, f.Unit, f.NCM, f.CFOP = form.Description, form.Type, form.Unit, brdoc.Digits(form.NCM), brdoc.Digits(form.CFOP)
	f.UsageType, f.IBSCBSCST, f.IBSCBSClass, f.IBSCBSOperation, f.GTIN = form.Usage, form.CST, form.Class, form.Operation, form.GTIN
	if form.Code != "" {
		f.Code = form.Code
	}
	if f.UsageType == "" {
		f.UsageType = map[string]string{"product": "00", "service": "09"}[f.Type]
	}
	return registers.CheckProduct(f, table)
}

// portalCreateProduct: POST /portal/products registers a product or
// service by the rules /insert_product_or_service holds it to.
func (s *Portal) portalCreateProduct(p *portalRequest) {
	form := productForm(p.r)
	var f store.ProductFields
	err := applyProductForm(form, &f, s.Invoices.Reform)
	made := true
	if err == nil {
		_, made, err = p.db.InsertProductOnce(p.ctx, p.unit.ID, form.Key, f)
	}
	if s.formRefused(p, err, productRefusal, func(field, words string) { s.productsPage(p, http.StatusBadRequest, form, field, words, "") }) {
		return
	}
	http.Redirect(p.w, p.r, "/portal/products?unit="+url.QueryEscape(p.unit.Token)+"&criado="+madeWord(made), http.StatusSeeOther)
}

// productPage: GET /portal/products/:token, a product's form to edit.
func (s *Portal) productPage(p *portalRequest, token string, status int, form *render.PortalProductForm, field, fieldErr string) {
	if form == nil {
		f, err := p.db.ProductByToken(p.ctx, p.unit.ID, token)
		if s.readFailed(p, err, "Produto", "products") {
			return
		}
		shown := productFormOf(f)
		form = &shown
	}
	errText := unsaved(fieldErr)
	body := render.PortalProduct{Token: token, Form: *form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	p.page(s, status, "product", "Editar produto ou serviço", "products", body, "", errText)
}

// portalEditProduct: POST /portal/products/:token saves a product's form by
// the rules /update_product_or_service holds it to.
func (s *Portal) portalEditProduct(p *portalRequest, token string) {
	form := productForm(p.r)
	err := p.db.UpdateProduct(p.ctx, p.unit.ID, token, func(f *store.ProductFields) error { return applyProductForm(form, f, s.Invoices.Reform) })
	if errors.Is(err, store.ErrNotFound) {
		s.portalMissing(p, "Produto", "products")
		return
	}
	if s.formRefused(p, err, productRefusal, func(field, words string) { s.productPage(p, token, http.StatusBadRequest, &form, field, words) }) {
		return
	}
	http.Redirect(p.w, p.r, "/portal/products?unit="+url.QueryEscape(p.unit.Token)+"&criado=2", http.StatusSeeOther)
}

package portal

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
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
	body := render.PortalProducts{Search: search, Form: form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	for _, it := range items {
		if search != "" && !strings.Contains(strings.ToLower(it.Description), strings.ToLower(search)) {
			continue
		}
		body.Products = append(body.Products, render.PortalProductRow{Code: it.Code, Description: it.Description,
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
	{store.ErrMoneyRange, "price", "preço inválido: use um valor como 24,90."},
	{store.ErrDuplicate, "code", "esse código já é de outro produto da unidade."},
}

// productRefusal is the field and the Portuguese words of a refusal; a
// tax reform code's reason is the table's own.
func productRefusal(err error) (string, string) {
	if field, words := productRefusals.find(err); field != "" {
		return field, words
	}
	var pr *problem.Problem
	if errors.As(err, &pr) {
		if d, ok := pr.Details.(registers.IBSCBSProblem); ok {
			return d.Field, "código da reforma tributária inválido (" + d.Message + ")."
		}
	}
	return "", ""
}

// portalCreateProduct: POST /portal/products registers a product or
// service by the rules /insert_product_or_service holds it to.
func (s *Portal) portalCreateProduct(p *portalRequest) {
	v := func(k string) string { return strings.TrimSpace(p.r.PostFormValue(k)) }
	form := render.PortalProductForm{Type: v("type"), Description: v("description"), Code: v("code"), Price: v("price"), Unit: strings.ToUpper(v("unit")),
		NCM: v("ncm"), CFOP: v("cfop"), Usage: v("usage_type"), CST: v("ibs_cbs_cst"), Class: v("ibs_cbs_class"), Operation: v("ibs_cbs_operation")}
	fail := func(field, words string) { s.productsPage(p, http.StatusBadRequest, form, field, words, "") }
	switch {
	case form.Description == "":
		fail("description", "informe a descrição.")
		return
	case len([]rune(form.Description)) > 255:
		fail("description", "descrição com até 255 caracteres.")
		return
	case len([]rune(form.Code)) > 60:
		fail("code", "código com até 60 caracteres.")
		return
	}
	f := store.ProductFields{Description: form.Description, Type: form.Type, Code: form.Code, Unit: form.Unit, NCM: brdoc.Digits(form.NCM),
		CFOP: brdoc.Digits(form.CFOP), UsageType: form.Usage, IBSCBSCST: form.CST, IBSCBSClass: form.Class, IBSCBSOperation: form.Operation}
	if f.UsageType == "" {
		f.UsageType = map[string]string{"product": "00", "service": "09"}[f.Type]
	}
	price, err := amountBR(form.Price)
	switch {
	case err != nil:
		fail("price", "preço inválido: use um valor como 24,90.")
		return
	case price != nil && price.IsNegative():
		fail("price", "o preço não pode ser negativo.")
		return
	case price != nil:
		f.MonetaryValue = *price
	}
	err = registers.CheckProduct(&f, s.Invoices.Reform)
	if err == nil {
		_, err = p.db.InsertProduct(p.ctx, p.unit.ID, f)
	}
	if err != nil {
		field, words := productRefusal(err)
		if field == "" {
			s.portalFailed(p, err)
			return
		}
		fail(field, words)
		return
	}
	http.Redirect(p.w, p.r, "/portal/products?unit="+url.QueryEscape(p.unit.Token)+"&criado=1", http.StatusSeeOther)
}

package server

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"fincom/store"
)

// TestPortalExports: every list page links its exports, and each answers
// the whole list as filtered (not only the page shown) as a CSV that
// Brazilian spreadsheets open (BOM, semicolons, comma decimals, dates
// DD/MM/YYYY) and as an XLSX whose money is numbers.
func TestPortalExports(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	db, release := acquire(t, ds)
	for i := range 60 {
		if _, err := db.InsertContact(context.Background(), 1, store.ContactFields{Type: "legal", Register: cnpjOf(i), SocialReason: fmt.Sprintf("Exportada %02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	release()
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel","value":"2500.00","due_date":"2026-11-05"}`)
	post(t, h, "/update_contact", withAddress)
	late := post(t, h, "/insert_sales_order", strings.Replace(serviceOrder, `"estimated_payment_date":"2026-11-30"`, `"estimated_payment_date":"2026-11-10"`, 1))
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+late["data"].(map[string]any)["id"].(string)+`"}`)
	unit := "unit=" + fx.tokens["unitA"]
	for _, c := range []struct{ page, file, header, row string }{
		{"/portal/contacts?busca=exportada&" + unit, "contatos", "Nome;Tipo;CPF/CNPJ", "Exportada 59;Pessoa jurídica;"},
		{"/portal/transactions?mes=2026-11&" + unit, "lancamentos-2026-11", "Tipo;Descrição;Categoria;Grupo do DRE;Competência;Vencimento;Pagamento;Documento;Parcela;Grupo de parcelas;Contato;CPF/CNPJ;Conta;Banco;Agência;Número da conta;Valor", "Despesa;Aluguel;;;05/11/2026;05/11/2026;;;;;;;;;;;2500,00"},
		{"/portal/orders?mes=2026-11&" + unit, "pedidos-2026-11", "Pedido;Cliente;Previsão de pagamento;Valor;Cobrança;Nota", ";10/11/2026;1500,00;"},
		{"/portal/products?" + unit, "produtos", "Código;Descrição;Tipo;Preço", ";Parafuso 10mm;Produto;0,35;UN;7318.15.00;5102"},
		{"/portal/overdue?" + unit, "em-atraso-2026-11-22", "Cliente;Pedido;Parcela;Vencimento;Dias de atraso;Valor;Cobrança", ";1;10/11/2026;12;1500,00;Boleto"},
		{"/portal/contracts?" + unit, "contratos", "Contrato;Cliente;Situação", ""},
		{"/portal/dre?mes=2026-11&" + unit, "dre-2026-11-01-2026-11-30", "Linha;01/11/2026 a 30/11/2026;01/10/2026 a 31/10/2026", "(−) Despesas administrativas;0,00;0,00"},
		{"/portal/statement?" + unit, "extrato", "Conta;Banco;Agência;Número da conta;Data;Valor;Histórico;Situação;Conciliação;FITID", ""},
		{"/portal/audit?" + unit, "registro", "Quando;Quem;O quê;Registro", "/insert_expense"},
	} {
		page := b.do("GET", c.page, nil).Body.String()
		var links [][]string
		for _, l := range regexp.MustCompile(`<a href="([^"]+)" download>`).FindAllStringSubmatch(page, -1) {
			if !strings.Contains(l[1], "lista=") {
				links = append(links, l)
			}
		}
		if len(links) != 2 {
			t.Errorf("%s links %d exports", c.page, len(links))
			continue
		}
		rec := b.do("GET", html.UnescapeString(links[0][1]), nil)
		body := rec.Body.String()
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" || !strings.Contains(rec.Header().Get("Content-Disposition"), `filename="`+c.file+`.csv"`) ||
			!strings.HasPrefix(body, "\ufeff"+c.header) || !strings.Contains(body, c.row) {
			t.Errorf("%s CSV = %d %v\n%s", c.page, rec.Code, rec.Header(), body)
		}
		rec = b.do("GET", html.UnescapeString(links[1][1]), nil)
		f, err := excelize.OpenReader(bytes.NewReader(rec.Body.Bytes()))
		if err != nil {
			t.Errorf("%s XLSX: %v", c.page, err)
			continue
		}
		rows, _ := f.GetRows(f.GetSheetList()[0])
		if len(rows) != strings.Count(body, "\r\n") {
			t.Errorf("%s: the XLSX has %d rows, the CSV %d", c.page, len(rows), strings.Count(body, "\r\n"))
		}
		f.Close()
	}
	// The orders' page exports the period's charges and invoices too, the
	// products' page the stock movements.
	for _, c := range []struct{ path, want string }{
		{"/portal/orders?mes=2026-11&lista=cobrancas&formato=csv&" + unit, ";1;10/11/2026;Boleto bancário;1500,00;"},
		{"/portal/orders?mes=2026-11&lista=notas&formato=csv&" + unit, "Tipo;Série;Número;Chave;Emissão;Pedido;Cliente;CPF/CNPJ do cliente;CFOP;Valor;ICMS;ISS;PIS;COFINS;IBS;CBS;Situação;Protocolo"},
		{"/portal/products?lista=estoque&formato=csv&" + unit, "Data;Tipo;Produto;Quantidade;Unidade;Valor unitário;Valor total"},
	} {
		if rec := b.do("GET", c.path, nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s = %d\n%s", c.path, rec.Code, rec.Body)
		}
	}
	if page := b.do("GET", "/portal/orders?mes=2026-11&"+unit, nil).Body.String(); !strings.Contains(page, "Exportar as cobranças com vencimento no período") {
		t.Error("the orders' page does not link the charges' export")
	}
	// The whole list, not the page: 60 contacts, 50 on the page.
	rec := b.do("GET", "/portal/contacts?busca=exportada&formato=csv&"+unit, nil)
	if n := strings.Count(rec.Body.String(), "\r\n"); n != 61 {
		t.Errorf("the contacts' CSV has %d lines, want 61", n)
	}
	// A contact's address, as the accountant registers it.
	rec = b.do("GET", "/portal/contacts?busca=alfa&formato=csv&"+unit, nil)
	if want := "Alfa;Pessoa jurídica;11.444.777/0001-61;Alfa Comércio Ltda;;Av. Paulista;1500;;Bela Vista;01310-100;São Paulo;SP;contato@alfa.com.br;(11) 3333-4444;"; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("the contact's row is not %s:\n%s", want, rec.Body)
	}
	// Money is a number in the XLSX.
	rec = b.do("GET", "/portal/transactions?mes=2026-11&formato=xlsx&"+unit, nil)
	f, err := excelize.OpenReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := f.GetSheetList()[0]
	if v, _ := f.GetCellValue(sheet, "Q2", excelize.Options{RawCellValue: true}); v != "2500" {
		t.Errorf("the value cell is %q", v)
	}
	if typ, _ := f.GetCellType(sheet, "Q2"); typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
		t.Errorf("the value cell is of type %v", typ)
	}
}

package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"fincom/store"
)

// TestIBSCBSThroughTheAPI: a CRT 3 unit's NF-e states IBS and CBS on its
// items by the class its product was sold with (a later change of the
// product does not reach the order), and IBSCBSTot; the fixture's Simples
// Nacional unit states none in 2026.
func TestIBSCBSThroughTheAPI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		crt    int
		states bool
	}{{"regime normal", 3, true}, {"simples nacional", 1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			s, ds := newTestServer(t)
			h := s.Handler()
			post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
			db, release, err := ds.Acquire(context.Background(), "acme")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.SetUnitProfile(context.Background(), fx.tokens["unitA"], func(p *store.UnitProfile) error {
				p.CRT, p.ICMSRate, p.PISRate, p.COFINSRate = tc.crt, "18", "0.65", "3"
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			release()
			post(t, h, "/update_product_or_service", `{`+auth+`,"id_token":"{{product1}}","ibs_cbs_cst":"200","ibs_cbs_class":"200035"}`)
			id := post(t, h, "/insert_sales_order", strings.Replace(productOrder, `"local_destino":2`, `"local_destino":1`, 1))["data"].(map[string]any)["id"].(string)
			post(t, h, "/update_product_or_service", `{`+auth+`,"id_token":"{{product1}}","ibs_cbs_cst":"000","ibs_cbs_class":"000001"}`)
			out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
			if out["status"] != "AUTHORIZED" {
				t.Fatalf("issued %v", out)
			}
			xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
			for _, want := range []string{"<IBSCBS><CST>200</CST><cClassTrib>200035</cClassTrib><gIBSCBS>", "<pCBS>0.9000</pCBS><gRed><pRedAliq>60.0000</pRedAliq>",
				"<IBSCBSTot><vBCIBSCBS>"} {
				if strings.Contains(xml, want) != tc.states {
					t.Errorf("CRT %d: %q in the note is %v", tc.crt, want, !tc.states)
				}
			}
			// The DANFE shows the note's IBS and CBS totals; the NFC-e's
			// receipt too.
			pub := publicOf(t, h, id)
			text := pdfToText(t, do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+pub, "").Body.Bytes())
			page := do(h, http.MethodGet, "/sales_orders/public_danfe/"+pub, "").Body.String()
			if strings.Contains(text, "VALOR DA CBS") != tc.states || strings.Contains(page, "VALOR DA CBS") != tc.states {
				t.Errorf("CRT %d: the DANFE's IBS and CBS totals shown: PDF %v, page %v", tc.crt, !tc.states, !tc.states)
			}
			nfce := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
			if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+nfce+`"}`)["data"].(map[string]any); out["status"] != "AUTHORIZED" {
				t.Fatalf("NFC-e %v", out)
			}
			pub = publicOf(t, h, nfce)
			xml = do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+pub, "").Body.String()
			receipt := pdfToText(t, do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+pub, "").Body.Bytes())
			if strings.Contains(xml, "<IBSCBSTot>") != tc.states || strings.Contains(receipt, "CBS R$") != tc.states {
				t.Errorf("CRT %d: the NFC-e's IBS and CBS: in the XML %v, on the receipt %v", tc.crt, strings.Contains(xml, "<IBSCBSTot>"), strings.Contains(receipt, "CBS R$"))
			}
		})
	}
}

// TestNationalNFSeOfTheReform: a CRT 3 provider's national NFS-e declares
// in layout 1.01 the class and operation indicator of the service sold;
// without the operation indicator the 422 names it.
func TestNationalNFSeOfTheReform(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	normalRegime(t, ds)
	id := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"field":"service.ibs_cbs_operation"`) {
		t.Fatalf("without the operation indicator: %d %s", rec.Code, rec.Body)
	}
	post(t, h, "/update_product_or_service", `{`+auth+`,"id_token":"{{service1}}","ibs_cbs_cst":"200","ibs_cbs_class":"200052","ibs_cbs_operation":"100301"}`)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if out["status"] != "AUTHORIZED" {
		t.Fatalf("issued %v", out)
	}
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	for _, want := range []string{`<NFSe xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.01">`, `versao="1.01"><infDPS`,
		"<cIndOp>100301</cIndOp>", "<CST>200</CST><cClassTrib>200052</cClassTrib>"} {
		if !strings.Contains(xml, want) {
			t.Errorf("the note lacks %s: %.2000s", want, xml)
		}
	}
}

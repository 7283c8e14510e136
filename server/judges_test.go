package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
	"fincom/server/needs"
	"fincom/server/psp"
	"fincom/server/settings"
	"fincom/store"
)

// judgeModules is where the outside judges' npm packages are installed
// (.ci/judges: npm install there); FINCOM_JUDGE_MODULES overrides.
func judgeModules() string {
	if d := os.Getenv("FINCOM_JUDGE_MODULES"); d != "" {
		return d
	}
	return filepath.Join("..", ".ci", "judges")
}

// TestOutsideJudges has others read what fincom emits for banks and
// banking apps: the remittance and return files of each bank through
// @banco-br/nodejs-cnab with @banco-br/cnab_yaml's layouts, every BR Code
// through pix-utils, every boleto through boleto-brasileiro-validator
// (.ci/judges/judge.js). Where the judges are not installed the test
// skips, except in CI, where it fails.
func TestOutsideJudges(t *testing.T) {
	t.Parallel()
	needs.Outside(t)
	mods := judgeModules()
	if _, err := os.Stat(filepath.Join(mods, "node_modules", "pix-utils")); err != nil {
		needs.Missing(t, "the outside judges are not installed", needs.JudgesInstall)
	}
	dir := t.TempDir()
	write := func(name string, v any) {
		var b []byte
		switch x := v.(type) {
		case []byte:
			b = x
		default:
			b, _ = json.MarshalIndent(v, "", " ")
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	type pixCase struct {
		Code   string `json:"code"`
		Key    string `json:"key,omitempty"`
		URL    string `json:"url,omitempty"`
		Amount string `json:"amount,omitempty"`
		TxID   string `json:"txid,omitempty"`
	}
	type boletoCase struct {
		Line    string `json:"line"`
		Barcode string `json:"barcode"`
	}
	var pixes []pixCase
	var boletos []boletoCase

	type title struct {
		OurTail   string `json:"our_tail"`
		OurP      string `json:"our_p,omitempty"`
		OurFull   string `json:"our_full"`
		Document  string `json:"document"`
		Due       string `json:"due"`
		Cents     int64  `json:"cents"`
		Movement  string `json:"movement"`
		Payer     string `json:"payer"`
		PayerID   string `json:"payer_id"`
		Zip       string `json:"zip"`
		PaidCents int64  `json:"paid_cents"`
		Occurred  string `json:"occurred"`
	}
	type expect struct {
		Bank     string  `json:"bank"`
		YAMLBank string  `json:"yaml_bank"`
		Sequence int     `json:"sequence"`
		Firm     string  `json:"firm"`
		Layout   string  `json:"layout"`
		Titles   []title `json:"titles"`
		// Header, Batch and P are further fields of the file header, the
		// batch header and each segment P, by cnab_yaml's names, as fincom
		// meant to write them.
		Header map[string]string `json:"header,omitempty"`
		Batch  map[string]string `json:"batch,omitempty"`
		P      map[string]string `json:"p,omitempty"`
	}
	// Each slot with its default bank on one server; Banco do Brasil and
	// Caixa each behind a slot of a server of their own.
	s, _ := newTestServer(t)
	h := s.Handler()
	shared, sharedPayer := h, ""
	for _, c := range []struct{ provider, bank string }{{"provider_a", "341"}, {"provider_b", "237"}, {"provider_c", "033"},
		{"provider_a", "001"}, {"provider_b", "104"}} {
		p, h, payer := c.provider, shared, sharedPayer
		b, _ := bank.ByCode(c.bank)
		ag, _ := bank.SampleOf(c.bank)
		own, _ := bank.ByProvider(p)
		if own.Code != c.bank {
			srv, sds := newTestServer(t)
			h, payer = srv.Handler(), ""
			agreeWith(t, sds, p, ag)
		}
		ag.Name, ag.CNPJ, ag.Provider = "Acme Matriz", "11222333000181", p
		if err := b.Check(&ag); err != nil {
			t.Fatal(err)
		}
		if payer == "" {
			payer = post(t, h, "/insert_contact", `{`+auth+`,"type":"legal","register":"04.252.011/0001-10","socialReason":"Beta Distribuidora de Peças Ltda",
		"address":"Avenida Paulista","number":"1000","neighborhood":"Bela Vista","city":"São Paulo","state":"SP","zip_code":"01310-100"}`)["token"].(string)
			if own.Code == c.bank {
				sharedPayer = payer
			}
		}
		yamlBank := map[string]string{"033": "033", "001": "001", "104": "104/sigcb"}[b.Code]
		layout := map[string]string{"341": "040", "237": "084", "033": "040", "001": "084", "104": "050"}[b.Code]
		var header, batch, pFields map[string]string
		switch b.Code {
		case "001":
			header = map[string]string{"codigo_convenio": "00" + ag.Code, "cobranca_cedente": "0014", "carteira": ag.Wallet, "variacao_carteira": ag.Variation,
				"agencia": "0" + ag.Agency, "agencia_dv": ag.AgencyDV, "conta": "0000" + ag.Account, "conta_dv": ag.AccountDV}
			batch = map[string]string{"codigo_convenio": "00" + ag.Code, "carteira": ag.Wallet, "variacao_carteira": ag.Variation}
			pFields = map[string]string{"codigo_carteira": "7", "agencia": "0" + ag.Agency, "conta": "0000" + ag.Account}
		case "104":
			header = map[string]string{"agencia": "0" + ag.Agency, "codigo_cedente": ag.Code, "nome_banco": "CAIXA ECONOMICA FEDERAL"}
			batch = map[string]string{"codigo_convenio": ag.Code, "codigo_cedente": ag.Code}
			pFields = map[string]string{"modalidade_carteira": "14", "codigo_cedente": ag.Code, "codigo_moeda": "09"}
		}
		name := p + "_" + b.Code
		var titles []title
		var orders []string
		for _, value := range []string{"1500", "89.90"} {
			order := strings.Replace(strings.Replace(serviceOrder, `"provider_a"`, `"`+p+`"`, 1), `"id_token_contact":"{{contact1}}"`, `"id_token_contact":"`+payer+`"`, 1)
			order = strings.Replace(order, `"value":1500`, `"value":`+value, 1)
			id := post(t, h, "/insert_sales_order", order)["data"].(map[string]any)["id"].(string)
			orders = append(orders, id)
			post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
			o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
			c := o["charges"].([]any)[0].(map[string]any)
			if !strings.HasPrefix(c["boleto_barcode"].(string), b.Code) {
				t.Fatalf("%s: not a boleto of %s: %v", name, b.Name, c)
			}
			boletos = append(boletos, boletoCase{c["boleto_line"].(string), c["boleto_barcode"].(string)})
			var n int64
			fmt.Sscan(c["our_number"].(string), &n)
			our, _ := b.OurNumber(ag, n)
			tt := title{OurTail: our.Number[len(our.Number)-8:] + our.DV, OurFull: our.Number + our.DV, Document: fmt.Sprintf("%s/1", o["cod_orders"]),
				Due: "30112026", Cents: decimal.RequireFromString(value).Shift(2).IntPart(), Movement: "01", Payer: "BETA DISTRIBUIDORA DE PECAS LTDA",
				PayerID: "04252011000110", Zip: "01310100"}
			switch b.Code {
			case "341":
				tt.OurTail = ""
			case "001":
				// BB's segment P: the convênio and sequence, left-aligned.
				tt.OurP = our.Number + our.DV
			case "104":
				// SIGCB's P and T carry the 15-digit number after its
				// modality, without its digit.
				tt.OurP, tt.OurFull = our.Number, our.Number
			}
			titles = append(titles, tt)
		}
		rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"`+p+`"}`)
		if rec.Code != 200 {
			t.Fatalf("%s remittance: %d %s", name, rec.Code, rec.Body)
		}
		write(name+".rem", rec.Body.Bytes())
		write(name+".json", expect{Bank: b.Code, YAMLBank: yamlBank, Sequence: 1, Firm: "ACME MATRIZ", Layout: layout, Titles: titles,
			Header: header, Batch: batch, P: pFields})

		// The second order cancelled after it was sent: the next remittance
		// asks the bank to write it off, segment P alone.
		post(t, h, "/cancel_charge", `{`+auth+`,"id_token":"`+orders[1]+`"}`)
		rec = do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"`+p+`"}`)
		if rec.Code != 200 || strings.Count(rec.Body.String(), "\r\n") != 5 {
			t.Fatalf("%s write-off remittance: %d\n%s", name, rec.Code, rec.Body)
		}
		wo := titles[1]
		wo.Movement = "02"
		write(name+"_writeoff.rem", rec.Body.Bytes())
		write(name+"_writeoff.json", expect{Bank: b.Code, YAMLBank: yamlBank, Sequence: 2, Firm: "ACME MATRIZ", Layout: layout, Titles: []title{wo},
			Header: header, P: pFields})

		// The bank's answer: registered and paid.
		day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
		var items []bank.ReturnItem
		var rt []title
		for i, tt := range titles {
			our, _ := b.OurNumber(ag, int64(i+1))
			amt := decimal.New(tt.Cents, -2)
			items = append(items, bank.ReturnItem{Movement: "06", Our: our, Document: tt.Document, Due: day, Amount: amt, Paid: amt, Occurred: day, Credited: day})
			rt = append(rt, title{OurFull: tt.OurFull, Cents: tt.Cents, Movement: "06", PaidCents: tt.Cents, Occurred: "28112026"})
		}
		ret, err := b.ReturnFile(ag, 7, day, items)
		if err != nil {
			t.Fatal(err)
		}
		write(name+"_return.ret", ret)
		write(name+"_return.json", expect{Bank: b.Code, YAMLBank: yamlBank, Sequence: 7, Firm: "ACME MATRIZ", Layout: layout, Titles: rt, Header: header})
	}

	// BR Codes: the static code of each kind of key, with and without an
	// amount, and a production provider's (static, with the charge's txid).
	for _, k := range []struct{ sent, key string }{{"529.982.247-25", "52998224725"}, {"11.222.333/0001-81", "11222333000181"},
		{"(11) 98888-7777", "+5511988887777"}, {"Fin@Acme.com.br", "fin@acme.com.br"},
		{"123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000"}} {
		for _, provider := range []string{"", "provider_b"} {
			body := strings.Replace(productOrder, `"charge_pix_key":"pix@acme.com.br"`, `"charge_pix_key":"`+k.sent+`"`, 1)
			if provider != "" {
				body = strings.Replace(body, `"charge": {`, `"charge": {"provider_bank":"`+provider+`",`, 1)
			}
			id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
			post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
			c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
			txid := "***"
			if v, ok := c["pix_txid"].(string); ok && v != "" {
				txid = v
			}
			pixes = append(pixes, pixCase{Code: c["pix_payload"].(string), Key: k.key, Amount: "47.30", TxID: txid})
		}
	}
	// Test mode's local PSP (a throw-away domain's): a dynamic code with
	// its location.
	tm, _ := newTestModeServer(t)
	th := tm.Handler()
	d := post(t, th, "/_test/domains", `{"label":"judges"}`)["data"].(map[string]any)
	tok := `"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"`
	contact := post(t, th, "/insert_contact", `{`+tok+`,"type":"legal","register":"11444777000161","socialReason":"Cliente SA"}`)["token"].(string)
	product := post(t, th, "/insert_product_or_service", `{`+tok+`,"description":"Consultoria","type":"service","monetary_value":"35.00"}`)["token"].(string)
	category := post(t, th, "/get_categories", `{`+tok+`,"type":"in"}`)["data"].([]any)[0].(map[string]any)["token"].(string)
	id := post(t, th, "/insert_sales_order", `{`+tok+`,
		"pv": {"id_token_contact":"`+contact+`","id_token_stock_item":"`+product+`","description":"Consultoria","value":35,"quantity":1},
		"faturamento": {"id_token_category":"`+category+`","estimated_payment_date":"2026-11-30"},
		"charge": {"payment_type":"`+payPix+`","provider_bank":"provider_a","installment_credit":1,"charge_pix_key":"fin@loja.com.br"}}`)["data"].(map[string]any)["id"].(string)
	post(t, th, "/generate_charge", `{`+tok+`,"id_token":"`+id+`"}`)
	c := post(t, th, "/get_sales_order_by_id", `{`+tok+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	code := c["pix_payload"].(string)
	// The location is the merchant account's (26) field 25, read as
	// the BR Code's fields are: id, two-digit length, value.
	url := emvField(emvField(code, "26"), "25")
	if !strings.HasPrefix(url, "psp.fincom.test") {
		t.Fatalf("a test mode PIX code without the local PSP's location: %s", code)
	}
	if !strings.Contains(code, "62070503***") || strings.Contains(code, "540535.00") {
		t.Errorf("a dynamic code carries its amount and txid at its location, not in itself: %s", code)
	}
	pixes = append(pixes, pixCase{Code: code, URL: url})
	// A PSP that answers only the charge's location (pixCopiaECola is
	// optional in the API Pix): the code fincom builds of it.
	var located psp.Cob
	located.Loc.Location = "pix.psp-sem-brcode.example/qr/v2/cobv/9d36b84fc70b478fb95c12729b90ca25"
	built, err := located.BRCode("Acme Matriz Comércio", "São Paulo")
	if err != nil {
		t.Fatal(err)
	}
	pixes = append(pixes, pixCase{Code: built, URL: located.Loc.Location})
	write("pix.json", pixes)
	write("boletos.json", boletos)

	out, err := exec.Command("node", filepath.Join("..", ".ci", "judges", "judge.js"), dir).CombinedOutput()
	if err != nil {
		t.Fatalf("the outside judges disagree:\n%s", out)
	}
	t.Logf("%s", out)
}

// agreeWith sets the unit's agreement in the provider's slot to ag (a
// sample of its bank), as an operator does.
func agreeWith(t *testing.T, ds *store.Domains, provider string, ag bank.Agreement) {
	t.Helper()
	db, release := acquire(t, ds)
	defer release()
	unit, err := db.UnitByToken(context.Background(), fx.tokens["unitA"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settings.SetAgreement(context.Background(), db, unit, settings.AgreementInput{Provider: provider, Bank: ag.Bank,
		Agency: ag.Agency + "-" + ag.AgencyDV, Account: ag.Account + "-" + ag.AccountDV, Wallet: ag.Wallet, Code: ag.Code, Variation: ag.Variation}); err != nil {
		t.Fatal(err)
	}
}

// emvField is the value of the top-level field id of an EMV code (id, two
// digits of length, value), "" when absent.
func emvField(code, id string) string {
	for len(code) >= 4 {
		n, err := strconv.Atoi(code[2:4])
		if err != nil || len(code) < 4+n {
			return ""
		}
		if code[:2] == id {
			return code[4 : 4+n]
		}
		code = code[4+n:]
	}
	return ""
}

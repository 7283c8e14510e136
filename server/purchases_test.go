package server

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal"
)

const purchaseKey = "35170458716523000119550010000000121000123458"

func TestPurchases(t *testing.T) {
	t.Parallel()
	nfe := testFile(t, "nfe.xml")
	importIt := func(h http.Handler) {
		t.Helper()
		if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": nfe}); rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body.String())
		}
	}
	s, _ := newTestServer(t)
	h := s.Handler()
	importIt(h)
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": nfe}); rec.Code != 409 {
		t.Fatalf("import twice: %d", rec.Code)
	}
	if rec := doMultipart(h, "/import_nfe", `{"access_token":"{{access}}","unit_token":"{{unitB}}"}`, map[string][]byte{"nota.xml": nfe}); rec.Code != 422 {
		t.Fatalf("import for another CNPJ: %d %s", rec.Code, rec.Body.String())
	}
	inbox := post(t, h, "/list_nfes", `{`+auth+`}`)["data"].([]any)
	if len(inbox) != 1 || inbox[0].(map[string]any)["access_key"] != purchaseKey || inbox[0].(map[string]any)["total_value"] != "335.50" {
		t.Fatalf("inbox %v", inbox)
	}
	// Manifestation rules.
	for _, c := range []struct {
		body   string
		status int
	}{
		{`{` + auth + `,"access_key":"` + purchaseKey + `","event":"ciencia"}`, 200},
		{`{` + auth + `,"access_key":"` + purchaseKey + `","event":"ciencia"}`, 409},
		{`{` + auth + `,"access_key":"` + purchaseKey + `","event":"nao_realizada","justification":"curta"}`, 400},
		{`{` + auth + `,"access_key":"` + purchaseKey + `","event":"vendido"}`, 400},
		{`{` + auth + `,"access_key":"` + purchaseKey + `","event":"confirmacao"}`, 200},
		{`{` + auth + `,"access_key":"` + purchaseKey + `","event":"desconhecimento"}`, 409},
		{`{` + auth + `,"access_key":"35170458716523000119550010000000131000123450","event":"ciencia"}`, 404},
	} {
		if rec := do(h, http.MethodPost, "/manifest_nfe", c.body); rec.Code != c.status {
			t.Errorf("%s: %d %s", c.body, rec.Code, rec.Body.String())
		}
	}
	// A purchase order from the key fills from the inbox's XML.
	id := post(t, h, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"`+purchaseKey+`"}`)["token"].(string)
	if rec := do(h, http.MethodPost, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"`+purchaseKey+`"}`); rec.Code != 409 {
		t.Fatalf("same key twice: %d", rec.Code)
	}
	if rec := do(h, http.MethodPost, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"35170458716523000119550010000000121000123459"}`); rec.Code != 422 {
		t.Fatalf("bad key: %d", rec.Code)
	}
	compareGoldenHandler(t, h, "/get_purchase_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`, "purchases/from_xml")
	// A key not in the inbox gives an order awaiting its XML, from the key.
	post(t, h, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"35261111222333000181550010000000071123456788"}`)
	list := post(t, h, "/list_purchase_orders", `{`+auth+`,"search":"Fornecedor"}`)["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["status"] != "awaiting_xml" || list[0].(map[string]any)["keyInfo"].(map[string]any)["number"] != "000000007" {
		t.Fatalf("awaiting order %v", list)
	}
	if n := len(post(t, h, "/list_purchase_orders", `{`+auth+`,"access_key":"`+purchaseKey+`"}`)["data"].([]any)); n != 1 {
		t.Fatalf("by key: %d", n)
	}
	if n := len(post(t, h, "/list_purchase_orders", `{`+auth+`,"date_from":"2017-05-01","date_to":"2017-05-31"}`)["data"].([]any)); n != 1 {
		t.Fatalf("by date: %d", n)
	}
	// A date that is none is refused naming it, not a filter that finds
	// nothing.
	if rec := do(h, http.MethodPost, "/list_purchase_orders", `{`+auth+`,"date_from":"01/05/2017"}`); rec.Code/100 != 4 ||
		!strings.Contains(rec.Body.String(), `"field":"date_from"`) {
		t.Fatalf("a date that is none: %d %s", rec.Code, rec.Body)
	}
	// The supplier became a contact.
	if n := len(post(t, h, "/get_contacts", `{`+auth+`,"register":"58716523000119"}`)["data"].([]any)); n != 1 {
		t.Fatal("supplier contact not created")
	}
	out := post(t, h, "/set_purchase_order_active", `{`+auth+`,"id_token_purchase_order":"`+id+`","active":false}`)
	if d := out["data"].(map[string]any); d["ok"] != true || d["data"].(map[string]any)["active"] != false || d["data"].(map[string]any)["id"] != id {
		t.Fatalf("set active %v", out)
	}
	if rec := do(h, http.MethodPost, "/set_purchase_order_active", `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token_purchase_order":"`+id+`","active":true}`); rec.Code != 403 {
		t.Fatalf("other unit: %d", rec.Code)
	}
	if rec := do(h, http.MethodPost, "/set_purchase_order_active", `{`+auth+`,"id_token_purchase_order":"`+id+`"}`); rec.Code != 403 {
		t.Fatalf("missing active: %d", rec.Code)
	}
}

func compareGoldenHandler(t *testing.T, h http.Handler, path, body, golden string) {
	t.Helper()
	rec := do(h, http.MethodPost, path, body)
	if rec.Code != 200 {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
	}
	compareGolden(t, golden, rec.Body.Bytes())
}

// TestPurchaseSearchValues: a purchase order search looks at the
// supplier's name and document and the items' descriptions and codes,
// never at the stored items' JSON (whose keys, total, unit, ncm and
// description, matched every complete order).
func TestPurchaseSearchValues(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": testFile(t, "nfe.xml")}); rec.Code != 200 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"`+purchaseKey+`"}`)
	for search, want := range map[string]int{
		"Total": 0, "total": 0, "unit": 0, "ncm": 0, "description": 0, "unitValue": 0, "5102": 0,
		"Caderno": 1, "caneta": 1, "CAD200": 1, "CAN0": 1, "58716523000119": 1, "58.716.523/0001-19": 1, "Papelaria": 1,
	} {
		body := `{` + auth + `,"search":` + strconv.Quote(search) + `}`
		if got := len(post(t, h, "/list_purchase_orders", body)["data"].([]any)); got != want {
			t.Errorf("search %q: %d orders, want %d", search, got, want)
		}
	}
}

// TestPurchaseOnlyValidSuppliers: a key whose check digit holds but whose
// issuer CNPJ does not is refused, and makes no contact that
// /insert_contact would refuse.
func TestPurchaseOnlyValidSuppliers(t *testing.T) {
	t.Parallel()
	// 35.525.137/0001-00 (wrong check digits), model 55, series 1, number 7,
	// with the key's own check digit right.
	key := "3526113552513700010055001000000007112345678"
	key += fmt.Sprint(keyDigit(key))
	s, _ := newTestServer(t)
	h := s.Handler()
	rec := do(h, http.MethodPost, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"`+key+`"}`)
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"Invalid access key: its issuer's CNPJ is not a valid CNPJ, so no supplier can be made of it."`) {
		t.Fatalf("key with an invalid issuer: %d %s", rec.Code, rec.Body.String())
	}
	if n := len(post(t, h, "/get_contacts", `{`+auth+`,"register":"35525137000100"}`)["data"].([]any)); n != 0 {
		t.Fatalf("a contact was made of an invalid CNPJ")
	}
	if n := len(post(t, h, "/list_purchase_orders", `{`+auth+`}`)["data"].([]any)); n != 0 {
		t.Fatalf("a purchase order was made")
	}
}

// keyDigit is an access key's module 11 check digit.
func keyDigit(k string) int {
	sum, w := 0, 2
	for i := len(k) - 1; i >= 0; i-- {
		sum += int(k[i]-'0') * w
		if w++; w > 9 {
			w = 2
		}
	}
	if d := 11 - sum%11; d < 10 {
		return d
	}
	return 0
}

// TestInboxTakesAuthorizedOnly: outside test mode the inbox takes only
// what an authority authorized, as its issuer signed it: an NF-e without
// its protocol (or with another key's, or a denial's), changed after
// signing, unsigned, or signed with a test certificate is refused naming
// why, and nothing is stored; the authorized note then enters. Test mode
// takes a note without protocol.
func TestInboxTakesAuthorizedOnly(t *testing.T) {
	t.Parallel()
	good := string(testFile(t, "nfe.xml"))
	prot := good[strings.Index(good, "<protNFe") : strings.Index(good, "</protNFe>")+len("</protNFe>")]
	sig := good[strings.Index(good, "<Signature") : strings.Index(good, "</Signature>")+len("</Signature>")]
	nfe := good[strings.Index(good, "<NFe>") : strings.Index(good, "</NFe>")+len("</NFe>")]
	supplier, err := certs.TestCertificate("Distribuidora Paulista", "58716523000119", fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	testSigned, err := fiscal.Sign([]byte(strings.Replace(good, sig, "", 1)), "NFe"+purchaseKey, supplier)
	if err != nil {
		t.Fatal(err)
	}
	// Forged: the note re-signed by certificates of the forger's own,
	// naming no CNPJ or the issuer's, that chain to nothing trusted.
	unsigned := []byte(strings.Replace(good, sig, "", 1))
	var forged []string
	for _, cn := range []string{"FALSARIO", "DISTRIBUIDORA PAULISTA DE PAPELARIA LTDA:58716523000119"} {
		signed, err := fiscal.Sign(unsigned, "NFe"+purchaseKey, forgedCertificate(t, cn))
		if err != nil {
			t.Fatal(err)
		}
		forged = append(forged, string(signed))
	}
	const (
		noProt = "The NF-e has no authorization protocol: import the nfeProc the issuer received from SEFAZ (with its protNFe, cStat 100). Nothing was stored."
		badSig = "The NF-e's signature does not verify (details.reason): it changed after it was signed, or the issuer's certificate did not sign it. Nothing was stored."
	)
	s, _ := newTestServer(t)
	h := s.Handler()
	for _, c := range []struct {
		name, xml, text string
	}{
		{"no protocol", strings.Replace(good, prot, "", 1), noProt},
		{"the NFe alone", `<?xml version="1.0" encoding="UTF-8"?>` + strings.Replace(nfe, "<NFe>", `<NFe xmlns="http://www.portalfiscal.inf.br/nfe">`, 1), noProt},
		{"another key's protocol", strings.Replace(good, "<chNFe>"+purchaseKey, "<chNFe>"+purchaseKey[:43]+"9", 1), noProt},
		{"denied", strings.Replace(good, "<cStat>100</cStat>", "<cStat>302</cStat>", 1), noProt},
		{"total changed after signing", strings.Replace(good, "<vNF>335.50</vNF>", "<vNF>1335.50</vNF>", 1), badSig},
		{"unsigned", strings.Replace(good, sig, "", 1), badSig},
		{"test certificate", string(testSigned), badSig},
		{"forged, no CNPJ", forged[0], badSig},
		{"forged, the issuer's CNPJ", forged[1], badSig},
	} {
		rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": []byte(c.xml)})
		if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"error":"`+c.text+`"`) {
			t.Errorf("%s: %d %s", c.name, rec.Code, rec.Body)
		}
	}
	if inbox := post(t, h, "/list_nfes", `{`+auth+`}`)["data"].([]any); len(inbox) != 0 {
		t.Fatalf("refused notes were stored: %v", inbox)
	}
	// The issuer's own note is taken only where its signer is trusted:
	// here by the tests' --ca-file (testdata/docread/supplier.pem); a
	// server trusting the ICP-Brasil roots alone refuses it.
	icpOnly, err := certs.SignerPool("")
	if err != nil {
		t.Fatal(err)
	}
	now := fixedNow
	b, inv, err := testServices(ServiceOptions{PublicURL: "https://fincom.test", Keyring: testKeys, SignerRoots: icpOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	strict, _ := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test", Billing: b, Invoices: inv})
	if rec := doMultipart(strict.Handler(), "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": []byte(good)}); rec.Code != 422 ||
		!strings.Contains(rec.Body.String(), `"error":"`+badSig+`"`) || !strings.Contains(rec.Body.String(), "is not trusted") {
		t.Errorf("a signer chaining to no trusted root: %d %s", rec.Code, rec.Body)
	}
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": []byte(good)}); rec.Code != 200 {
		t.Fatalf("the authorized note: %d %s", rec.Code, rec.Body)
	}
	tm, _ := newTestModeServer(t)
	if rec := doMultipart(tm.Handler(), "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": []byte(strings.Replace(good, prot, "", 1))}); rec.Code != 200 {
		t.Fatalf("test mode, no protocol: %d %s", rec.Code, rec.Body)
	}
}

// forgedCertificate is a forger's self-signed certificate named cn (an
// ICP-Brasil-like "NAME:CNPJ" names a CNPJ), no test certificate of
// fincom's.
func forgedCertificate(t *testing.T, cn string) certs.Certificate {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: cn, Organization: []string{"ICP-Brasil"}, Country: []string{"BR"}},
		NotBefore: time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return certs.Certificate{Cert: c, Key: key}
}

// TestInboxConfirmedAtTheAuthority: outside test mode, where the unit has
// its certificate, a note enters the inbox only once its authority
// confirms it authorized with the same digest (list_nfes says when);
// a note the authority does not know, holds cancelled or under another
// digest is refused with its answer, and an authority that does not
// answer stores nothing.
func TestInboxConfirmedAtTheAuthority(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	good := testFile(t, "nfe.xml")
	const notConfirmed = "The tax authority does not confirm this NF-e as authorized (details.code, details.reason): it does not know it, it was cancelled, or it is not the note it authorized. Nothing was stored."
	otherDigest := strings.Replace(string(good), "<digVal>", "<digVal>AAAA", 1)
	for _, c := range []struct {
		name   string
		know   func() error
		status int
		text   string
		code   float64
	}{
		{"unknown to the authority", func() error { return nil }, 422, notConfirmed, 217},
		{"cancelled", func() error { return a.Know(good, true, 0) }, 422, notConfirmed, 101},
		{"another digest", func() error { return a.Know([]byte(otherDigest), false, 0) }, 422, notConfirmed, 100},
		{"authority down", func() error { a.SetOffline(true); return nil }, 502, "The tax authority did not answer when asked to confirm the NF-e. Try again: nothing was stored.", 0},
	} {
		if err := c.know(); err != nil {
			t.Fatal(err)
		}
		rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": good})
		body := rec.Body.String()
		if rec.Code != c.status || !strings.Contains(body, `"error":"`+c.text+`"`) || (c.code != 0 && !strings.Contains(body, fmt.Sprintf(`"code":%v`, c.code))) {
			t.Errorf("%s: %d %s", c.name, rec.Code, body)
		}
		a.SetOffline(false)
	}
	if inbox := post(t, h, "/list_nfes", `{`+auth+`}`)["data"].([]any); len(inbox) != 0 {
		t.Fatalf("refused notes were stored: %v", inbox)
	}
	if err := a.Know(good, false, 0); err != nil {
		t.Fatal(err)
	}
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": good}); rec.Code != 200 {
		t.Fatalf("confirmed: %d %s", rec.Code, rec.Body)
	}
	if n := post(t, h, "/list_nfes", `{`+auth+`}`)["data"].([]any)[0].(map[string]any); n["confirmed_at"] != "2026-11-22T09:00:00-03:00" {
		t.Errorf("confirmed_at %v", n["confirmed_at"])
	}
}

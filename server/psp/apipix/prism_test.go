package apipix_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fincom/server/certs"
	"fincom/server/needs"
	"fincom/server/psp"
	"fincom/server/psp/apipix"
)

// TestClientAgainstPrism runs fincom's PSP client through a whole flow
// (cob, cobv, their reads and removal, a Pix, a refund, the webhooks, a
// Pix Automático recurrence, its request to the payer and its charge)
// against Stoplight Prism (`prism mock --errors`, from the npm registry;
// .ci/run installs it and names it in FINCOM_PRISM) mocking the Banco
// Central's API Pix 2.9.0: a judge nobody here wrote. Prism answers a
// request the document does not allow with a 4xx of its own; any 4xx
// fails the test. Prism's answers are the document's examples, which name
// other charges than the ones asked and which the document's own schemas
// refuse in places (Prism then answers 500 VIOLATIONS, having checked the
// request first): the client refusing an answer as not its own
// (psp.ErrAnswer), or such a 500, is expected. The document is fincom's
// copy (apipix.Spec: the 14 JavaScript-style patterns read as
// expressions, the three requirements nothing can hold set aside), less
// the payload locations' paths, which live at the location's host and
// would take /cobv/{txid}'s GET. Prism serves no token URL (the API Pix
// leaves OAuth to each PSP): a loopback one stands in for it.
func TestClientAgainstPrism(t *testing.T) {
	t.Parallel()
	needs.Outside(t)
	bin := needs.Prism(t)
	doc, err := apipix.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/{pixUrlAccessToken}", "/cobv/{pixUrlAccessToken}", "/rec/{recUrlAccessToken}"} {
		if doc.Paths.Value(p) == nil {
			t.Fatalf("the document has no path %s", p)
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	json.Unmarshal(b, &generic)
	paths := generic["paths"].(map[string]any)
	for _, p := range []string{"/{pixUrlAccessToken}", "/cobv/{pixUrlAccessToken}", "/rec/{recUrlAccessToken}"} {
		delete(paths, p)
	}
	b, _ = json.Marshal(generic)
	file := filepath.Join(t.TempDir(), "apipix.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	base := startPrism(t, bin, file)

	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"access_token":"prism","token_type":"Bearer","expires_in":3600}`))
	}))
	defer tokens.Close()
	cert, err := certs.TestCertificate("Acme Matriz", "11222333000181", time.Now().AddDate(0, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	c := &psp.Client{BaseURL: base, TokenURL: tokens.URL, ClientID: "acme", Secret: "segredo", Cert: cert, Timeout: 20 * time.Second,
		PixKey: "11222333000181"}
	ctx := context.Background()
	calls := 0
	judged := func(what string, err error) {
		t.Helper()
		calls++
		var p *psp.Problem
		switch {
		case err == nil, errors.Is(err, psp.ErrAnswer):
		case errors.As(err, &p) && p.Status == http.StatusInternalServerError && strings.Contains(p.Type, "prism/errors#VIOLATIONS"):
		case errors.As(err, &p) && p.Status >= 400 && p.Status < 500:
			t.Errorf("%s: Prism refused fincom's request: %v", what, err)
		default:
			t.Errorf("%s: %v", what, err)
		}
	}
	txid, txidV := "FC0123456789ABCDEF0123456789AB", "FC0123456789ABCDEF0123456789CD"
	var cob psp.CobI
	cob.Calendario.Expiracao = 86400
	cob.Valor.Original, cob.Chave, cob.SolicitacaoPagador = "47.30", c.PixKey, "Pedido PV-000001"
	_, err = c.PutCob(ctx, txid, cob)
	judged("PUT /cob", err)
	var cobv psp.CobV
	cobv.Calendario.DataDeVencimento, cobv.Calendario.ValidadeAposVencimento = time.Now().AddDate(0, 0, 10).Format(time.DateOnly), 30
	cobv.Devedor.CPF, cobv.Devedor.Nome = "52998224725", "Maria da Silva"
	cobv.Valor.Original, cobv.Chave = "47.30", c.PixKey
	cobv.Valor.Multa = &psp.Modality{Modalidade: 2, ValorPerc: "2.00"}
	cobv.Valor.Juros = &psp.Modality{Modalidade: 3, ValorPerc: "1.00"}
	_, err = c.PutCobV(ctx, txidV, cobv)
	judged("PUT /cobv", err)
	for _, k := range []string{psp.Immediate, psp.WithDue} {
		_, err = c.Get(ctx, k, txidV)
		judged("GET /"+k, err)
		_, err = c.Remove(ctx, k, txidV)
		judged("PATCH /"+k, err)
	}
	e2e := "E12345678202611281200ABCDEFGHIJK"
	_, err = c.GetPix(ctx, e2e)
	judged("GET /pix", err)
	_, err = c.PutRefund(ctx, e2e, "D0123456789ABCDEF0123456789ABCD0", "5.00", "Devolução do pedido")
	judged("PUT /pix/devolucao", err)
	_, err = c.GetRefund(ctx, e2e, "D0123456789ABCDEF0123456789ABCD0")
	judged("GET /pix/devolucao", err)
	// Webhook URLs on loopback: Prism calls the document's callbacks when
	// a webhook is registered, and nothing leaves the machine.
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer hooks.Close()
	judged("PUT /webhook", c.PutWebhook(ctx, c.PixKey, hooks.URL+"/api/v1/psp/fcw_acme_segredo"))
	_, err = c.Webhook(ctx, c.PixKey)
	judged("GET /webhook", err)
	judged("PUT /webhookrec and /webhookcobr", c.PutRecHooks(ctx, hooks.URL+"/api/v1/psp/fcw_acme_segredo"))
	_, err = c.RecHook(ctx)
	judged("GET /webhookrec", err)
	var r psp.Rec
	r.Vinculo.Contrato, r.Vinculo.Objeto = "63100862", "Mensalidade"
	r.Vinculo.Devedor = psp.Person{CPF: "52998224725", Nome: "Maria da Silva"}
	r.Calendario.DataInicial, r.Calendario.Periodicidade = time.Now().AddDate(0, 0, 30).Format(time.DateOnly), "MENSAL"
	r.Valor.ValorRec, r.PoliticaRetentativa = "35.00", "NAO_PERMITE"
	_, err = c.PostRec(ctx, r)
	judged("POST /locrec and /rec", err)
	idRec := "RN1234567820261128abcdefghijk"
	_, err = c.GetRec(ctx, idRec)
	judged("GET /rec", err)
	_, err = c.PostSolicRec(ctx, idRec, time.Now().Add(7*24*time.Hour).UTC().Format(time.RFC3339),
		psp.Account{ISPB: "00000000", Agency: "0001", Number: "123456"}, psp.Person{CPF: "52998224725", Nome: "Maria da Silva"})
	judged("POST /solicrec", err)
	var cr psp.CobR
	cr.IDRec, cr.Calendario.DataDeVencimento, cr.Valor.Original = idRec, time.Now().AddDate(0, 0, 30).Format(time.DateOnly), "35.00"
	cr.Recebedor.Conta, cr.Recebedor.TipoConta, cr.Recebedor.Agencia = "56789", "CORRENTE", "1234"
	_, err = c.PutCobR(ctx, txid, cr)
	judged("PUT /cobr", err)
	_, err = c.GetCobR(ctx, txid)
	judged("GET /cobr", err)
	_, err = c.CancelCobR(ctx, txid)
	judged("PATCH /cobr", err)
	_, err = c.CancelRec(ctx, idRec)
	judged("PATCH /rec", err)
	t.Logf("%d calls judged by Prism", calls)

	// The judge can refuse: a charge without its amount, sent by hand.
	req, _ := http.NewRequest(http.MethodPut, base+"/cob/"+txid, bytes.NewReader([]byte(`{"chave":"11222333000181"}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer prism")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		t.Fatalf("Prism took a charge without its amount: %d", resp.StatusCode)
	}
}

// startPrism starts Prism mocking doc on a loopback port and answers its
// address; it stops with the test.
func startPrism(t *testing.T, bin, doc string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "mock", "--errors", "-h", "127.0.0.1", "-p", fmt.Sprint(port), doc)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	listening := regexp.MustCompile(`Prism is listening on (http://\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		return strings.TrimRight(u, "/")
	case <-time.After(2 * time.Minute):
		t.Fatal("Prism did not start")
	}
	return ""
}

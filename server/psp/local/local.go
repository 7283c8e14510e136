// Package local is a PSP of fincom's own, on a loopback address: it
// speaks the Banco Central's API Pix (2.9.0) as a PSP does to its
// receiving customers: OAuth 2.0 client credentials over mutual TLS, the
// access token required on every call and refused once expired (401),
// errors as application/problem+json. The psp client reaches it through
// the same code that reaches a PSP; the tests use it, never a production
// server.
package local

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"fincom/render/pix"
	"fincom/server/psp/apipix"
)

// PSP is the local PSP. Give it the client it knows.
type PSP struct {
	ClientID, Secret string
	// Now is its clock (time.Now when nil); TokenTTL its tokens' life (an
	// hour when 0).
	Now      func() time.Time
	TokenTTL time.Duration
	// Host is its charges' locations' host (the request's when "").
	Host string

	mu       sync.Mutex
	tokens   map[string]time.Time // token -> expiry
	webhooks map[string]string    // PIX key -> URL
	issued   int
	seq      int
	charges  map[string]*charge        // by txid
	pix      map[string]map[string]any // by end-to-end id
	refunds  map[string]*refund        // by end-to-end id/refund id
	recs     map[string]*rec           // by idRec
	cobrs    map[string]*cobr          // by txid
	refuse   string                    // why refunds are refused ("" settles them)
	offline  bool
	noBRCode bool // answer charges without pixCopiaECola
}

// SetWithoutBRCode makes it answer charges without pixCopiaECola, which
// the API Pix makes optional (many PSPs give only the location), or with
// it again.
func (p *PSP) SetWithoutBRCode(off bool) { p.mu.Lock(); p.noBRCode = off; p.mu.Unlock() }

// SetOffline makes it answer 503 to every call, or answer again.
func (p *PSP) SetOffline(off bool) { p.mu.Lock(); p.offline = off; p.mu.Unlock() }

// charge is a charge with a due date it holds.
type charge struct {
	body    map[string]any
	status  string
	revisao int
	loc     int
	kind    string // cob, cobv
	paid    []map[string]any
	created time.Time
}

// receiver is the PSP's client as the API Pix names it in answers
// (recebedor): the CNPJ of its key when the key is one, and the address
// it registered.
func receiver(key string) map[string]any {
	cnpj := "00000000000000"
	if len(key) == 14 && strings.Trim(key, "0123456789") == "" {
		cnpj = key
	}
	return map[string]any{"cnpj": cnpj, "nome": "Recebedor do PSP local", "logradouro": "Avenida Paulista, 1000", "cidade": "São Paulo",
		"uf": "SP", "cep": "01310100"}
}

// Charge answers a charge's state and amount, for the tests.
func (p *PSP) Charge(txid string) (status, amount string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.charges[txid]
	if !ok {
		return "", "", false
	}
	v, _ := c.body["valor"].(map[string]any)
	a, _ := v["original"].(string)
	return c.status, a, true
}

// Know makes it hold an active charge it did not see created (a domain
// restored from a snapshot meets a PSP that agrees with it).
func (p *PSP) Know(kind, txid, amount, key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.charges[txid]; ok {
		return
	}
	if p.charges == nil {
		p.charges = map[string]*charge{}
	}
	p.seq++
	p.charges[txid] = &charge{body: map[string]any{"valor": map[string]any{"original": amount}, "chave": key}, status: "ATIVA", loc: p.seq, kind: kind}
}

// KnowPix makes it hold a Pix it did not see paid (paidAt YYYY-MM-DD).
func (p *PSP) KnowPix(endToEndID, txid, amount, key, paidAt string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pix == nil {
		p.pix = map[string]map[string]any{}
	}
	p.pix[endToEndID] = map[string]any{"endToEndId": endToEndID, "txid": txid, "valor": amount, "chave": key, "horario": paidAt + "T15:00:00Z"}
}

// ChargeBody answers the body a charge was created with, for the tests.
func (p *PSP) ChargeBody(txid string) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.charges[txid]
	if !ok {
		return nil
	}
	b, _ := json.Marshal(c.body)
	return b
}

func (p *PSP) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Tokens counts the access tokens it issued.
func (p *PSP) Tokens() int { p.mu.Lock(); defer p.mu.Unlock(); return p.issued }

// RevokeTokens makes every token it issued invalid (the next call is 401).
func (p *PSP) RevokeTokens() { p.mu.Lock(); p.tokens = nil; p.mu.Unlock() }

// Webhook answers the URL registered for a key.
func (p *PSP) Webhook(key string) string { p.mu.Lock(); defer p.mu.Unlock(); return p.webhooks[key] }

// SetWebhook registers the URL a key's payments are posted to.
func (p *PSP) SetWebhook(key, url string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.webhooks == nil {
		p.webhooks = map[string]string{}
	}
	p.webhooks[key] = url
}

// problem answers an RFC 7807 problem as the API Pix writes them.
func problem(w http.ResponseWriter, status int, typ, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "https://pix.bcb.gov.br/api/v2/error/" + typ, "title": title, "status": status,
		"detail": detail})
}

// ServeHTTP answers a client that presents a certificate.
func (p *PSP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Every answer of the API Pix is JSON (a refusal application/problem+
	// json, set by problem): said before any status is written.
	w.Header().Set("Content-Type", "application/json")
	p.mu.Lock()
	off := p.offline
	p.mu.Unlock()
	if off {
		problem(w, http.StatusServiceUnavailable, "ServicoIndisponivel", "Serviço indisponível", "Tente novamente mais tarde.")
		return
	}
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		problem(w, http.StatusForbidden, "AcessoNegado", "Acesso Negado", "A conexão exige o certificado do cliente.")
		return
	}
	if r.URL.Path == "/oauth/token" {
		p.token(w, r)
		return
	}
	if !p.authorized(r) {
		problem(w, http.StatusUnauthorized, "NaoAutorizado", "Não Autorizado", "Token de acesso ausente, inválido ou expirado.")
		return
	}
	if txid, ok := strings.CutPrefix(r.URL.Path, "/cobv/"); ok {
		p.cobv(w, r, "cobv", txid)
		return
	}
	if txid, ok := strings.CutPrefix(r.URL.Path, "/cob/"); ok {
		p.cobv(w, r, "cob", txid)
		return
	}
	if p.automatico(w, r) {
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/pix/"); ok && strings.Contains(rest, "/devolucao/") {
		e2e, id, _ := strings.Cut(rest, "/devolucao/")
		p.refund(w, r, e2e, id)
		return
	}
	if e2e, ok := strings.CutPrefix(r.URL.Path, "/pix/"); ok && r.Method == http.MethodGet {
		p.mu.Lock()
		px, ok := p.pix[e2e]
		p.mu.Unlock()
		if !ok {
			problem(w, http.StatusNotFound, "PixNaoEncontrado", "Pix não encontrado.", "Não há Pix com o endToEndId "+e2e+".")
			return
		}
		json.NewEncoder(w).Encode(px)
		return
	}
	key, ok := strings.CutPrefix(r.URL.Path, "/webhook/")
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodPut) {
		problem(w, http.StatusNotFound, "NaoEncontrado", "Não Encontrado", "Recurso não encontrado.")
		return
	}
	key, _ = url.PathUnescape(key)
	if r.Method == http.MethodPut {
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err == nil {
			err = apipix.ValidateBody(http.MethodPut, "/webhook/{chave}", b)
		}
		var in struct {
			URL string `json:"webhookUrl"`
		}
		if err != nil || json.Unmarshal(b, &in) != nil {
			problem(w, http.StatusBadRequest, "WebhookOperacaoInvalida", "Webhook inválido.", fmt.Sprint(err))
			return
		}
		p.SetWebhook(key, in.URL)
		w.WriteHeader(http.StatusOK)
		return
	}
	p.mu.Lock()
	u, ok := p.webhooks[key]
	p.mu.Unlock()
	if !ok {
		problem(w, http.StatusNotFound, "WebhookNaoEncontrado", "Webhook não encontrado", "Não há webhook associado à chave "+key+".")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"webhookUrl": u, "chave": key, "cnpj": receiver(key)["cnpj"], "criacao": p.now().UTC().Format(time.RFC3339)})
}

// token answers the client credentials grant.
func (p *PSP) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	id, _ = url.QueryUnescape(id)
	secret, _ = url.QueryUnescape(secret)
	if r.Method != http.MethodPost || r.ParseForm() != nil || r.PostForm.Get("grant_type") != "client_credentials" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"unsupported_grant_type"}`))
		return
	}
	if !ok || id != p.ClientID || secret != p.Secret {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client"}`))
		return
	}
	b := make([]byte, 24)
	rand.Read(b)
	tok := hex.EncodeToString(b)
	ttl := p.TokenTTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	p.mu.Lock()
	if p.tokens == nil {
		p.tokens = map[string]time.Time{}
	}
	p.tokens[tok] = p.now().Add(ttl)
	p.issued++
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(ttl.Seconds()),
		"scope": "cob.write cob.read pix.write pix.read webhook.write webhook.read"})
}

// authorized checks the bearer token.
func (p *PSP) authorized(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	exp, ok := p.tokens[tok]
	return ok && p.now().Before(exp)
}

var txidPattern = regexp.MustCompile(`^[a-zA-Z0-9]{26,35}$`)

// cobv answers PUT, GET and PATCH /cob/{txid} and /cobv/{txid} (kind):
// bodies held to the published schema, a txid used once (of either kind),
// a removal of an active charge only.
func (p *PSP) cobv(w http.ResponseWriter, r *http.Request, kind, txid string) {
	if !txidPattern.MatchString(txid) {
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida.", "O txid deve ter de 26 a 35 letras e números.")
		return
	}
	var body []byte
	if r.Method == http.MethodPut || r.Method == http.MethodPatch {
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err == nil {
			err = apipix.ValidateBody(r.Method, "/"+kind+"/{txid}", b)
		}
		if err != nil {
			problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida.", err.Error())
			return
		}
		body = b
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.charges[txid]
	switch {
	case r.Method == http.MethodPut && c != nil:
		problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida.", "O txid "+txid+" já foi utilizado.")
		return
	case r.Method == http.MethodPut:
		var m map[string]any
		json.Unmarshal(body, &m)
		if p.charges == nil {
			p.charges = map[string]*charge{}
		}
		p.seq++
		c = &charge{body: m, status: "ATIVA", loc: p.seq, kind: kind, created: p.now().UTC()}
		p.charges[txid] = c
		w.WriteHeader(http.StatusCreated)
	case c == nil || c.kind != kind:
		problem(w, http.StatusNotFound, "CobVNaoEncontrado", "Cobrança não encontrada.", "Não há cobrança com o txid "+txid+".")
		return
	case r.Method == http.MethodPatch:
		if c.status != "ATIVA" {
			problem(w, http.StatusBadRequest, "CobVOperacaoInvalida", "Cobrança inválida.", "A cobrança não está ATIVA.")
			return
		}
		c.status, c.revisao = "REMOVIDA_PELO_USUARIO_RECEBEDOR", c.revisao+1
	case r.Method != http.MethodGet:
		problem(w, http.StatusMethodNotAllowed, "NaoPermitido", "Método não permitido.", "")
		return
	}
	out := map[string]any{}
	for k, v := range c.body {
		out[k] = v
	}
	host := p.host(r)
	// A location names its charge alone, as PSPs' do (a digest of the
	// client and the txid: the same charge, the same code).
	h := sha256.Sum256([]byte(p.ClientID + ":" + txid))
	location := fmt.Sprintf("%s/qr/v2/%s/%x", host, kind, h[:16])
	code, _ := pix.Code{URL: location, Name: "FINCOM PSP LOCAL", City: "SAO PAULO"}.Payload()
	created := c.created.Format(time.RFC3339)
	out["txid"], out["status"], out["revisao"] = txid, c.status, c.revisao
	cal := map[string]any{"criacao": created}
	if in, ok := c.body["calendario"].(map[string]any); ok {
		for k, v := range in {
			cal[k] = v
		}
	}
	out["calendario"] = cal
	out["loc"] = map[string]any{"id": c.loc, "location": location, "tipoCob": kind, "txid": txid, "criacao": created}
	if kind == "cobv" {
		// CobVGerada as published: the location beside loc, and the
		// receiver (its address also at the top, as the document's
		// DadosRecebedor is composed there).
		key, _ := c.body["chave"].(string)
		rc := receiver(key)
		out["location"], out["recebedor"] = location, rc
		for _, k := range []string{"logradouro", "cidade", "uf", "cep"} {
			out[k] = rc[k]
		}
	}
	if !p.noBRCode {
		out["pixCopiaECola"] = code
	}
	if len(c.paid) > 0 {
		out["pix"] = c.paid
	}
	json.NewEncoder(w).Encode(out)
}

// Pay is a payer paying the charge txid with amount: the PSP records the
// Pix (its end-to-end id), concludes the charge and answers the Pix and
// the body it posts to the key's webhook (the webhook URL + /pix), for
// the caller to deliver. A charge not active is refused.
func (p *PSP) Pay(txid, amount string, at time.Time) (e2e, hookURL string, hook []byte, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, found := p.charges[txid]
	if !found || c.status != "ATIVA" {
		return "", "", nil, false
	}
	p.seq++
	// The id is unique across PSPs and time, as the SPI's are: its last
	// 11 characters random (a PSP made again after a domain's reset
	// must not repeat an id the domain applied).
	tail := make([]byte, 6)
	rand.Read(tail)
	e2e = fmt.Sprintf("E00000000%s%s", at.UTC().Format("200601021504"), strings.ToUpper(hex.EncodeToString(tail))[:11])
	key, _ := c.body["chave"].(string)
	px := map[string]any{"endToEndId": e2e, "txid": txid, "valor": amount, "chave": key, "horario": at.UTC().Format(time.RFC3339)}
	if p.pix == nil {
		p.pix = map[string]map[string]any{}
	}
	p.pix[e2e] = px
	c.status = "CONCLUIDA"
	c.paid = append(c.paid, px)
	hook, _ = json.Marshal(map[string]any{"pix": []any{px}})
	return e2e, p.webhooks[key], hook, true
}

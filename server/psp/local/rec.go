package local

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"fincom/server/psp/apipix"
)

// rec is a recurrence it holds, and cobr a charge of one.
type rec struct {
	body    map[string]any
	status  string
	loc     int
	history []any // atualizacao: each status and when
}

type cobr struct {
	body    map[string]any
	status  string
	pix     []map[string]any
	created time.Time
	history []any
}

// changed is a status and its time, as atualizacao lists them.
func changed(status string, at time.Time) map[string]any {
	return map[string]any{"status": status, "data": at.UTC().Format(time.RFC3339)}
}

// automatico answers Pix Automático: POST /locrec, POST /rec, GET and PATCH
// /rec/{idRec}, POST /solicrec, PUT, GET and PATCH /cobr/{txid}, PUT and
// GET /webhookrec and /webhookcobr; false for any other path.
func (p *PSP) automatico(w http.ResponseWriter, r *http.Request) bool {
	path := r.URL.Path
	switch {
	case path == "/locrec", path == "/rec", path == "/solicrec", path == "/webhookrec", path == "/webhookcobr",
		strings.HasPrefix(path, "/rec/"), strings.HasPrefix(path, "/cobr/"):
	default:
		return false
	}
	var body []byte
	if r.Method == http.MethodPut || r.Method == http.MethodPatch || (r.Method == http.MethodPost && path != "/locrec") {
		template := path
		switch {
		case strings.HasPrefix(path, "/rec/"):
			template = "/rec/{idRec}"
		case strings.HasPrefix(path, "/cobr/"):
			template = "/cobr/{txid}"
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err == nil {
			err = apipix.ValidateBody(r.Method, template, b)
		}
		if err != nil {
			problem(w, http.StatusBadRequest, "RequisicaoInvalida", "Requisição inválida.", err.Error())
			return true
		}
		body = b
	}
	var in map[string]any
	json.Unmarshal(body, &in)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now().UTC()
	switch {
	case path == "/locrec" && r.Method == http.MethodPost:
		p.seq++
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"id": p.seq, "location": fmt.Sprintf("%s/qr/v2/rec/%s", p.host(r), randomHex(16)),
			"criacao": now.Format(time.RFC3339), "tipo": "RECORRENCIA"})
	case path == "/rec" && r.Method == http.MethodPost:
		id := "RN00000000" + now.Format("20060102") + randomHex(6)[:11]
		if p.recs == nil {
			p.recs = map[string]*rec{}
		}
		loc, _ := in["loc"].(float64)
		p.recs[id] = &rec{body: in, status: "CRIADA", loc: int(loc), history: []any{changed("CRIADA", now)}}
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, p.recOut(id, r))
	case strings.HasPrefix(path, "/rec/"):
		id := strings.TrimPrefix(path, "/rec/")
		rc := p.recs[id]
		if rc == nil {
			problem(w, http.StatusNotFound, "RecorrenciaNaoEncontrada", "Recorrência não encontrada.", "Não há recorrência "+id+".")
			return true
		}
		if r.Method == http.MethodPatch {
			rc.status = "CANCELADA"
			rc.history = append(rc.history, changed("CANCELADA", now))
		}
		writeJSON(w, p.recOut(id, r))
	case path == "/solicrec" && r.Method == http.MethodPost:
		id, _ := in["idRec"].(string)
		if p.recs[id] == nil {
			problem(w, http.StatusNotFound, "RecorrenciaNaoEncontrada", "Recorrência não encontrada.", "Não há recorrência "+id+".")
			return true
		}
		in["idSolicRec"] = "SC00000000" + now.Format("20060102") + randomHex(6)[:11]
		in["status"] = "CRIADA"
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, in)
	case strings.HasPrefix(path, "/cobr/"):
		txid := strings.TrimPrefix(path, "/cobr/")
		if !txidPattern.MatchString(txid) {
			problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida.", "O txid deve ter de 26 a 35 letras e números.")
			return true
		}
		c := p.cobrs[txid]
		switch {
		case r.Method == http.MethodPut && c != nil:
			problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida.", "O txid "+txid+" já foi utilizado.")
			return true
		case r.Method == http.MethodPut:
			id, _ := in["idRec"].(string)
			if rc := p.recs[id]; rc == nil || rc.status != "APROVADA" {
				problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida.", "A recorrência "+id+" não está aprovada.")
				return true
			}
			if p.cobrs == nil {
				p.cobrs = map[string]*cobr{}
			}
			c = &cobr{body: in, status: "ATIVA", created: now, history: []any{changed("CRIADA", now), changed("ATIVA", now)}}
			p.cobrs[txid] = c
			w.WriteHeader(http.StatusCreated)
		case c == nil:
			problem(w, http.StatusNotFound, "CobRNaoEncontrada", "Cobrança não encontrada.", "Não há cobrança "+txid+".")
			return true
		case r.Method == http.MethodPatch && c.status != "ATIVA" && c.status != "CRIADA":
			problem(w, http.StatusBadRequest, "CobROperacaoInvalida", "Cobrança inválida.", "A cobrança não pode ser cancelada.")
			return true
		case r.Method == http.MethodPatch:
			c.status = "CANCELADA"
			c.history = append(c.history, changed("CANCELADA", now))
		}
		out := map[string]any{}
		for k, v := range c.body {
			out[k] = v
		}
		out["txid"], out["status"], out["atualizacao"] = txid, c.status, c.history
		cal := map[string]any{"criacao": c.created.Format(time.DateOnly)}
		if in, ok := c.body["calendario"].(map[string]any); ok {
			for k, v := range in {
				cal[k] = v
			}
		}
		out["calendario"] = cal
		rc := map[string]any{}
		if in, ok := c.body["recebedor"].(map[string]any); ok {
			for k, v := range in {
				rc[k] = v
			}
		}
		rc["cnpj"], rc["nome"] = receiver("")["cnpj"], receiver("")["nome"]
		if rec := p.recs[fmt.Sprint(c.body["idRec"])]; rec != nil {
			if key, _ := rec.body["chave"].(string); key != "" {
				rc["cnpj"] = receiver(key)["cnpj"]
			}
		}
		out["recebedor"] = rc
		if _, ok := out["politicaRetentativa"]; !ok {
			out["politicaRetentativa"] = "NAO_PERMITE"
		}
		if len(c.pix) > 0 {
			out["pix"] = c.pix
		}
		writeJSON(w, out)
	case path == "/webhookrec" || path == "/webhookcobr":
		if r.Method == http.MethodPut {
			u, _ := in["webhookUrl"].(string)
			if p.webhooks == nil {
				p.webhooks = map[string]string{}
			}
			p.webhooks[path] = u
			w.WriteHeader(http.StatusOK)
			return true
		}
		u, ok := p.webhooks[path]
		if !ok {
			problem(w, http.StatusNotFound, "WebhookNaoEncontrado", "Webhook não encontrado", "Não há webhook.")
			return true
		}
		writeJSON(w, map[string]any{"webhookUrl": u})
	default:
		return false
	}
	return true
}

// recOut is a recurrence as it answers it.
func (p *PSP) recOut(id string, r *http.Request) map[string]any {
	rc := p.recs[id]
	out := map[string]any{}
	for k, v := range rc.body {
		out[k] = v
	}
	out["idRec"], out["status"], out["atualizacao"] = id, rc.status, rc.history
	created := ""
	if len(rc.history) > 0 {
		created = rc.history[0].(map[string]any)["data"].(string)
	}
	out["loc"] = map[string]any{"id": rc.loc, "location": fmt.Sprintf("%s/qr/v2/rec/%d", p.host(r), rc.loc), "idRec": id, "tipo": "RECORRENCIA",
		"criacao": created}
	out["recebedor"] = map[string]any{"cnpj": receiver("")["cnpj"], "nome": receiver("")["nome"]}
	// DadosPagadorRec as published requires the payer's ISPB beside its
	// pagador too.
	ispb := "00000000"
	if pg, ok := rc.body["pagador"].(map[string]any); ok {
		if v, ok := pg["ispbParticipante"].(string); ok {
			ispb = v
		}
	}
	out["ispbParticipante"] = ispb
	return out
}

// ApproveRec is the payer approving a recurrence in the payer's app: the
// body the PSP posts to the receiver's recurrence webhook and its URL
// (the registered one + /rec); false for a recurrence not waiting.
func (p *PSP) ApproveRec(idRec string) (hookURL string, hook []byte, ok bool) {
	return p.decideRec(idRec, "APROVADA")
}

// RejectRec is the payer rejecting a recurrence.
func (p *PSP) RejectRec(idRec string) (hookURL string, hook []byte, ok bool) {
	return p.decideRec(idRec, "REJEITADA")
}

func (p *PSP) decideRec(idRec, status string) (string, []byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rc := p.recs[idRec]
	if rc == nil || rc.status != "CRIADA" {
		return "", nil, false
	}
	rc.status = status
	rc.history = append(rc.history, changed(status, p.now()))
	hook, _ := json.Marshal(map[string]any{"recs": []any{map[string]any{"idRec": idRec, "status": status,
		"atualizacao": []any{map[string]any{"status": status, "data": p.now().UTC().Format(time.RFC3339)}}}}})
	return p.hookURL("/webhookrec", "/rec"), hook, true
}

// Recs lists the recurrences it holds with their states, for the tests.
func (p *PSP) Recs() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]string{}
	for id, rc := range p.recs {
		out[id] = rc.status
	}
	return out
}

// CobRStatus answers the state of a recurrence's charge, for the tests.
func (p *PSP) CobRStatus(txid string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.cobrs[txid]; c != nil {
		return c.status
	}
	return ""
}

// PayCobR is the payer's PSP paying a recurrence's charge on its day: the
// Pix is recorded (GET /pix/{e2eid} answers it) and the charge
// concluded; it answers the body the PSP posts to the receiver's charge
// webhook and its URL (+ /cobr).
func (p *PSP) PayCobR(txid string, at time.Time) (e2e, hookURL string, hook []byte, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cobrs[txid]
	if c == nil || c.status != "ATIVA" {
		return "", "", nil, false
	}
	v, _ := c.body["valor"].(map[string]any)
	amount, _ := v["original"].(string)
	e2e = "E00000000" + at.UTC().Format("200601021504") + strings.ToUpper(randomHex(6))[:11]
	px := map[string]any{"endToEndId": e2e, "txid": txid, "valor": amount, "horario": at.UTC().Format(time.RFC3339)}
	if p.pix == nil {
		p.pix = map[string]map[string]any{}
	}
	p.pix[e2e] = px
	c.status, c.pix = "CONCLUIDA", append(c.pix, px)
	c.history = append(c.history, changed("CONCLUIDA", at))
	id, _ := c.body["idRec"].(string)
	hook, _ = json.Marshal(map[string]any{"cobsr": []any{map[string]any{"idRec": id, "txid": txid, "status": "CONCLUIDA"}}})
	return e2e, p.hookURL("/webhookcobr", "/cobr"), hook, true
}

// hookURL is the URL registered under kind followed by suffix, "" when
// none is.
func (p *PSP) hookURL(kind, suffix string) string {
	if u := p.webhooks[kind]; u != "" {
		return u + suffix
	}
	return ""
}

func (p *PSP) host(r *http.Request) string {
	if p.Host != "" {
		return p.Host
	}
	return r.Host
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

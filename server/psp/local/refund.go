package local

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/psp/apipix"
)

// refund is a devolução it holds: requested, then settled (DEVOLVIDO) or
// refused (NAO_REALIZADO) the first time it is asked about.
type refund struct {
	id, amount, status, reason string
	requested, settled         time.Time
	rtr                        int
}

// RefuseRefunds makes the refunds asked about from now on end
// NAO_REALIZADO with reason, or ("") settle again.
func (p *PSP) RefuseRefunds(reason string) { p.mu.Lock(); p.refuse = reason; p.mu.Unlock() }

// Refund answers a refund's state, for the tests.
func (p *PSP) Refund(endToEndID, id string) (status, amount string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.refunds[endToEndID+"/"+id]
	if !ok {
		return "", "", false
	}
	return f.status, f.amount, true
}

// refund answers PUT and GET /pix/{e2eid}/devolucao/{id}: a Pix it
// received is given back up to its amount, all refunds of it together.
func (p *PSP) refund(w http.ResponseWriter, r *http.Request, e2e, id string) {
	if !refundID.MatchString(id) {
		problem(w, http.StatusBadRequest, "DevolucaoOperacaoInvalida", "Devolução inválida.", "O id da devolução deve ter de 1 a 35 letras e números.")
		return
	}
	var body struct {
		Valor string `json:"valor"`
	}
	if r.Method == http.MethodPut {
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err == nil {
			err = apipix.ValidateBody(http.MethodPut, "/pix/{e2eid}/devolucao/{id}", b)
		}
		if err == nil {
			err = json.Unmarshal(b, &body)
		}
		if err != nil {
			problem(w, http.StatusBadRequest, "DevolucaoOperacaoInvalida", "Devolução inválida.", err.Error())
			return
		}
	} else if r.Method != http.MethodGet {
		problem(w, http.StatusMethodNotAllowed, "NaoPermitido", "Método não permitido.", "")
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	px, ok := p.pix[e2e]
	if !ok {
		problem(w, http.StatusNotFound, "PixNaoEncontrado", "Pix não encontrado.", "Não há Pix com o endToEndId "+e2e+".")
		return
	}
	key := e2e + "/" + id
	f := p.refunds[key]
	switch {
	case r.Method == http.MethodPut && f != nil:
		problem(w, http.StatusBadRequest, "DevolucaoOperacaoInvalida", "Devolução inválida.", "O id "+id+" já foi utilizado.")
		return
	case r.Method == http.MethodPut:
		paid, _ := decimal.NewFromString(px["valor"].(string))
		asked, _ := decimal.NewFromString(body.Valor)
		for k, g := range p.refunds {
			if strings.HasPrefix(k, e2e+"/") && g.status != "NAO_REALIZADO" {
				done, _ := decimal.NewFromString(g.amount)
				asked = asked.Add(done)
			}
		}
		if asked.GreaterThan(paid) {
			problem(w, http.StatusBadRequest, "DevolucaoOperacaoInvalida", "Devolução inválida.",
				"A soma das devoluções ultrapassa o valor do Pix.")
			return
		}
		if p.refunds == nil {
			p.refunds = map[string]*refund{}
		}
		p.seq++
		f = &refund{id: id, amount: body.Valor, status: "EM_PROCESSAMENTO", requested: p.now(), rtr: p.seq}
		p.refunds[key] = f
		w.WriteHeader(http.StatusCreated)
	case f == nil:
		problem(w, http.StatusNotFound, "DevolucaoNaoEncontrada", "Devolução não encontrada.", "Não há devolução "+id+" do Pix "+e2e+".")
		return
	case f.status == "EM_PROCESSAMENTO" && p.refuse != "":
		f.status, f.reason, f.settled = "NAO_REALIZADO", p.refuse, p.now()
	case f.status == "EM_PROCESSAMENTO":
		f.status, f.settled = "DEVOLVIDO", p.now()
	}
	out := map[string]any{"id": f.id, "rtrId": rtrID(f.rtr, f.requested), "valor": f.amount, "natureza": "ORIGINAL", "status": f.status,
		"horario": map[string]any{"solicitacao": f.requested.UTC().Format(time.RFC3339)}}
	if !f.settled.IsZero() {
		out["horario"].(map[string]any)["liquidacao"] = f.settled.UTC().Format(time.RFC3339)
	}
	if f.reason != "" {
		out["motivo"] = f.reason
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// rtrID is a refund's ReturnIdentification (32 characters: D, the PSP's
// ISPB, the time, a sequence).
func rtrID(seq int, at time.Time) string {
	return fmt.Sprintf("D00000000%s%011d", at.UTC().Format("200601021504"), seq)
}

// refundID is a refund's id: 1 to 35 letters and digits.
var refundID = regexp.MustCompile(`^[a-zA-Z0-9]{1,35}$`)

package psp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"fincom/server/psp/apipix"
)

// Refund is a devolução of a Pix the unit received, as the PSP answers it
// (Devolucao): the id fincom chose, the amount, its state and, once
// settled or refused, when and why.
type Refund struct {
	ID      string `json:"id"`
	RtrID   string `json:"rtrId"`
	Valor   string `json:"valor"`
	Status  string `json:"status"`
	Motivo  string `json:"motivo"`
	Horario struct {
		Solicitacao string `json:"solicitacao"`
		Liquidacao  string `json:"liquidacao"`
	} `json:"horario"`
}

// The states of a refund.
const (
	RefundPending  = "EM_PROCESSAMENTO"
	RefundDone     = "DEVOLVIDO"
	RefundRefused  = "NAO_REALIZADO"
	refundIDFormat = `^[a-zA-Z0-9]{1,35}$`
)

var (
	refundIDPattern = regexp.MustCompile(refundIDFormat)
	amountPattern   = regexp.MustCompile(`^\d{1,10}\.\d{2}$`)
)

// PutRefund asks the PSP to give back amount of the Pix endToEndID to its
// payer (PUT /pix/{e2eid}/devolucao/{id}), the body held to the published
// schema first; id is fincom's, so a retry after a lost answer is the same
// request: when the PSP already holds the refund id for the same amount,
// it is the answer.
func (c *Client) PutRefund(ctx context.Context, endToEndID, id, amount, description string) (Refund, error) {
	if !e2ePattern.MatchString(endToEndID) || !refundIDPattern.MatchString(id) {
		return Refund{}, fmt.Errorf("%w: refund %q of %q", apipix.ErrMessage, id, endToEndID)
	}
	body, err := json.Marshal(struct {
		Valor     string `json:"valor"`
		Natureza  string `json:"natureza"`
		Descricao string `json:"descricao,omitempty"`
	}{amount, "ORIGINAL", description})
	if err != nil {
		return Refund{}, err
	}
	if err := apipix.ValidateBody(http.MethodPut, "/pix/{e2eid}/devolucao/{id}", body); err != nil {
		return Refund{}, err
	}
	var out Refund
	err = c.call(ctx, http.MethodPut, "/pix/"+endToEndID+"/devolucao/"+id, json.RawMessage(body), &out)
	var p *Problem
	if errors.As(err, &p) && p.Status < 500 && p.Status != http.StatusUnauthorized {
		if held, gerr := c.GetRefund(ctx, endToEndID, id); gerr == nil && held.Valor == amount {
			return held, nil
		}
	}
	if err != nil {
		return Refund{}, err
	}
	return out, checkRefund(out, id)
}

// GetRefund asks the PSP for a refund's state (GET
// /pix/{e2eid}/devolucao/{id}).
func (c *Client) GetRefund(ctx context.Context, endToEndID, id string) (Refund, error) {
	if !e2ePattern.MatchString(endToEndID) || !refundIDPattern.MatchString(id) {
		return Refund{}, fmt.Errorf("%w: refund %q of %q", apipix.ErrMessage, id, endToEndID)
	}
	var out Refund
	if err := c.call(ctx, http.MethodGet, "/pix/"+endToEndID+"/devolucao/"+id, nil, &out); err != nil {
		return Refund{}, err
	}
	return out, checkRefund(out, id)
}

// checkRefund holds a refund the PSP answered to what was asked: its id,
// a known state, an amount in the API's form.
func checkRefund(r Refund, id string) error {
	switch {
	case r.ID != id:
		return fmt.Errorf("%w: the refund %q answered for %s", ErrAnswer, r.ID, id)
	case r.Status != RefundPending && r.Status != RefundDone && r.Status != RefundRefused:
		return fmt.Errorf("%w: the refund's status %q", ErrAnswer, r.Status)
	case !amountPattern.MatchString(r.Valor):
		return fmt.Errorf("%w: the refund's amount %q", ErrAnswer, r.Valor)
	}
	return nil
}

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

// Pix Automático: a recurrence (the payer's authorization of the
// receiver's periodic charges) and the charges of its cycles.

// Rec is a recurrence as fincom asks for it (RecSolicitada): the
// contract and its debtor, the first payment's day, the period, the
// amount, and the location its QR Code points at (Jornada 2).
type Rec struct {
	Vinculo struct {
		Contrato string `json:"contrato"`
		Devedor  Person `json:"devedor"`
		Objeto   string `json:"objeto,omitempty"`
	} `json:"vinculo"`
	Calendario struct {
		DataInicial   string `json:"dataInicial"`
		DataFinal     string `json:"dataFinal,omitempty"`
		Periodicidade string `json:"periodicidade"`
	} `json:"calendario"`
	Valor struct {
		ValorRec string `json:"valorRec"`
	} `json:"valor"`
	PoliticaRetentativa string `json:"politicaRetentativa"`
	Loc                 int    `json:"loc,omitempty"`
}

// Person is a debtor, by CPF or CNPJ.
type Person struct {
	CPF  string `json:"cpf,omitempty"`
	CNPJ string `json:"cnpj,omitempty"`
	Nome string `json:"nome"`
}

// RecState is a recurrence as the PSP answers it: its id, its state
// (CRIADA, APROVADA, REJEITADA, EXPIRADA, CANCELADA) and its location.
type RecState struct {
	IDRec  string `json:"idRec"`
	Status string `json:"status"`
	Loc    struct {
		ID       int    `json:"id"`
		Location string `json:"location"`
	} `json:"loc"`
}

// The recurrence states.
const (
	RecCreated  = "CRIADA"
	RecApproved = "APROVADA"
)

// recStates are the states a recurrence may be in.
var recStates = map[string]bool{RecCreated: true, RecApproved: true, "REJEITADA": true, "EXPIRADA": true, "CANCELADA": true}

// RecIDPattern is a recurrence's id (R, R or N, the agent, the day, a
// sequence: 29 letters and digits).
var RecIDPattern = regexp.MustCompile(`^R[RN][A-Z0-9]{8}\d{8}[a-zA-Z0-9]{11}$`)

// PostRec creates a recurrence at the PSP (POST /locrec for the location
// of its QR Code, then POST /rec), its body held to the published schema
// first. The PSP names it: a lost answer leaves a recurrence the payer
// was never shown, which expires unapproved.
func (c *Client) PostRec(ctx context.Context, r Rec) (RecState, error) {
	if err := validate(http.MethodPost, "/rec", r); err != nil {
		return RecState{}, err
	}
	var loc struct {
		ID       int    `json:"id"`
		Location string `json:"location"`
	}
	if err := c.call(ctx, http.MethodPost, "/locrec", nil, &loc); err != nil {
		return RecState{}, err
	}
	if loc.ID <= 0 || loc.Location == "" {
		return RecState{}, fmt.Errorf("%w: the location %d %q", ErrAnswer, loc.ID, loc.Location)
	}
	r.Loc = loc.ID
	body, err := json.Marshal(r)
	if err != nil {
		return RecState{}, err
	}
	if err := apipix.ValidateBody(http.MethodPost, "/rec", body); err != nil {
		return RecState{}, err
	}
	var out RecState
	if err := c.call(ctx, http.MethodPost, "/rec", json.RawMessage(body), &out); err != nil {
		return RecState{}, err
	}
	if out.Loc.Location == "" {
		out.Loc.ID, out.Loc.Location = loc.ID, loc.Location
	}
	return out, checkRec(out, "")
}

// GetRec asks the PSP for a recurrence (GET /rec/{idRec}).
func (c *Client) GetRec(ctx context.Context, idRec string) (RecState, error) {
	if !RecIDPattern.MatchString(idRec) {
		return RecState{}, fmt.Errorf("%w: idRec %q", apipix.ErrMessage, idRec)
	}
	var out RecState
	if err := c.call(ctx, http.MethodGet, "/rec/"+idRec, nil, &out); err != nil {
		return RecState{}, err
	}
	return out, checkRec(out, idRec)
}

// CancelRec has the PSP cancel a recurrence (PATCH /rec/{idRec}).
func (c *Client) CancelRec(ctx context.Context, idRec string) (RecState, error) {
	if !RecIDPattern.MatchString(idRec) {
		return RecState{}, fmt.Errorf("%w: idRec %q", apipix.ErrMessage, idRec)
	}
	body := []byte(`{"status":"CANCELADA"}`)
	if err := apipix.ValidateBody(http.MethodPatch, "/rec/{idRec}", body); err != nil {
		return RecState{}, err
	}
	var out RecState
	if err := c.call(ctx, http.MethodPatch, "/rec/"+idRec, json.RawMessage(body), &out); err != nil {
		return RecState{}, err
	}
	return out, checkRec(out, idRec)
}

// Account is a payer's account, where the payer's PSP asks the payer to
// approve a recurrence (Jornada 1).
type Account struct {
	ISPB, Agency, Number string
}

// PostSolicRec asks the payer's PSP, through the receiver's, to have the
// payer approve a recurrence until expires (RFC 3339), at the payer's
// account (POST /solicrec); it answers the request's id.
func (c *Client) PostSolicRec(ctx context.Context, idRec, expires string, to Account, debtor Person) (string, error) {
	if !RecIDPattern.MatchString(idRec) {
		return "", fmt.Errorf("%w: idRec %q", apipix.ErrMessage, idRec)
	}
	in := map[string]any{"idRec": idRec, "calendario": map[string]string{"dataExpiracaoSolicitacao": expires}}
	dest := map[string]string{"conta": to.Number, "ispbParticipante": to.ISPB}
	if to.Agency != "" {
		dest["agencia"] = to.Agency
	}
	if debtor.CPF != "" {
		dest["cpf"] = debtor.CPF
	} else {
		dest["cnpj"] = debtor.CNPJ
	}
	in["destinatario"] = dest
	body, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	if err := apipix.ValidateBody(http.MethodPost, "/solicrec", body); err != nil {
		return "", err
	}
	var out struct {
		ID     string `json:"idSolicRec"`
		Status string `json:"status"`
	}
	if err := c.call(ctx, http.MethodPost, "/solicrec", json.RawMessage(body), &out); err != nil {
		return "", err
	}
	if len(out.ID) != 29 {
		return "", fmt.Errorf("%w: the request's id %q", ErrAnswer, out.ID)
	}
	return out.ID, nil
}

func checkRec(r RecState, idRec string) error {
	switch {
	case !RecIDPattern.MatchString(r.IDRec), idRec != "" && r.IDRec != idRec:
		return fmt.Errorf("%w: the recurrence %q answered for %q", ErrAnswer, r.IDRec, idRec)
	case !recStates[r.Status]:
		return fmt.Errorf("%w: the recurrence's status %q", ErrAnswer, r.Status)
	}
	return nil
}

// CobR is a charge of a recurrence's cycle (CobRSolicitada): the
// recurrence, the due day, the amount, the receiver's account.
type CobR struct {
	IDRec         string `json:"idRec"`
	InfoAdicional string `json:"infoAdicional,omitempty"`
	Calendario    struct {
		DataDeVencimento string `json:"dataDeVencimento"`
	} `json:"calendario"`
	Valor struct {
		Original string `json:"original"`
	} `json:"valor"`
	AjusteDiaUtil bool `json:"ajusteDiaUtil"`
	Recebedor     struct {
		Agencia   string `json:"agencia,omitempty"`
		Conta     string `json:"conta"`
		TipoConta string `json:"tipoConta"`
	} `json:"recebedor"`
}

// CobRState is a recurrence's charge as the PSP answers it: its state
// (CRIADA, ATIVA, CONCLUIDA, EXPIRADA, REJEITADA, CANCELADA) and the Pix
// paid to it.
type CobRState struct {
	IDRec  string `json:"idRec"`
	Txid   string `json:"txid"`
	Status string `json:"status"`
	Valor  struct {
		Original string `json:"original"`
	} `json:"valor"`
	Pix []Pix `json:"pix"`
}

// Recurrent is the kind of a recurrence's charge (its provider
// reference).
const Recurrent = "cobr"

var cobrStates = map[string]bool{"CRIADA": true, Active: true, Paid: true, "EXPIRADA": true, "REJEITADA": true, "CANCELADA": true}

// PutCobR creates the charge txid of a recurrence's cycle (PUT
// /cobr/{txid}); a retry after a lost answer is the same PUT, and a PSP
// that already holds it for the same recurrence and amount answers it.
func (c *Client) PutCobR(ctx context.Context, txid string, b CobR) (CobRState, error) {
	if !TxIDPattern.MatchString(txid) {
		return CobRState{}, fmt.Errorf("%w: txid %q", apipix.ErrMessage, txid)
	}
	body, err := json.Marshal(b)
	if err != nil {
		return CobRState{}, err
	}
	if err := apipix.ValidateBody(http.MethodPut, "/cobr/{txid}", body); err != nil {
		return CobRState{}, err
	}
	var out CobRState
	err = c.call(ctx, http.MethodPut, "/cobr/"+txid, json.RawMessage(body), &out)
	var p *Problem
	if errors.As(err, &p) && p.Status < 500 && p.Status != http.StatusUnauthorized {
		if held, gerr := c.GetCobR(ctx, txid); gerr == nil && held.IDRec == b.IDRec && held.Valor.Original == b.Valor.Original {
			return held, nil
		}
	}
	if err != nil {
		return CobRState{}, err
	}
	return out, checkCobR(out, txid)
}

// GetCobR asks the PSP for a recurrence's charge (GET /cobr/{txid}).
func (c *Client) GetCobR(ctx context.Context, txid string) (CobRState, error) {
	if !TxIDPattern.MatchString(txid) {
		return CobRState{}, fmt.Errorf("%w: txid %q", apipix.ErrMessage, txid)
	}
	var out CobRState
	if err := c.call(ctx, http.MethodGet, "/cobr/"+txid, nil, &out); err != nil {
		return CobRState{}, err
	}
	return out, checkCobR(out, txid)
}

// CancelCobR has the PSP cancel a recurrence's charge (PATCH
// /cobr/{txid}, CANCELADA).
func (c *Client) CancelCobR(ctx context.Context, txid string) (CobRState, error) {
	if !TxIDPattern.MatchString(txid) {
		return CobRState{}, fmt.Errorf("%w: txid %q", apipix.ErrMessage, txid)
	}
	body := []byte(`{"status":"CANCELADA"}`)
	if err := apipix.ValidateBody(http.MethodPatch, "/cobr/{txid}", body); err != nil {
		return CobRState{}, err
	}
	var out CobRState
	if err := c.call(ctx, http.MethodPatch, "/cobr/"+txid, json.RawMessage(body), &out); err != nil {
		return CobRState{}, err
	}
	if err := checkCobR(out, txid); err != nil {
		return CobRState{}, err
	}
	if out.Status != "CANCELADA" {
		return CobRState{}, fmt.Errorf("%w: the charge is %s, not cancelled", ErrAnswer, out.Status)
	}
	return out, nil
}

func checkCobR(c CobRState, txid string) error {
	switch {
	case c.Txid != txid:
		return fmt.Errorf("%w: the charge %q answered for %s", ErrAnswer, c.Txid, txid)
	case !cobrStates[c.Status]:
		return fmt.Errorf("%w: the charge's status %q", ErrAnswer, c.Status)
	case !RecIDPattern.MatchString(c.IDRec):
		return fmt.Errorf("%w: the charge's recurrence %q", ErrAnswer, c.IDRec)
	}
	return nil
}

// PutRecHooks registers the URL the PSP posts the receiver's recurrences
// and their charges to (PUT /webhookrec and PUT /webhookcobr; the PSP
// appends /rec and /cobr).
func (c *Client) PutRecHooks(ctx context.Context, url string) error {
	body, err := json.Marshal(map[string]string{"webhookUrl": url})
	if err != nil {
		return err
	}
	for _, path := range []string{"/webhookrec", "/webhookcobr"} {
		if err := apipix.ValidateBody(http.MethodPut, path, body); err != nil {
			return err
		}
		if err := c.call(ctx, http.MethodPut, path, json.RawMessage(body), nil); err != nil {
			return err
		}
	}
	return nil
}

// RecHook answers the URL registered for the receiver's recurrences (GET
// /webhookrec), "" when none.
func (c *Client) RecHook(ctx context.Context) (string, error) {
	var w struct {
		URL string `json:"webhookUrl"`
	}
	err := c.call(ctx, http.MethodGet, "/webhookrec", nil, &w)
	var p *Problem
	if errors.As(err, &p) && p.Status == http.StatusNotFound {
		return "", nil
	}
	return w.URL, err
}

// validate holds a body to the published schema.
func validate(method, path string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return apipix.ValidateBody(method, path, body)
}

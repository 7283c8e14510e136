package psp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"regexp"

	"fincom/render/pix"
	"fincom/server/psp/apipix"
)

// CobV is a charge with a due date as the API Pix takes it
// (CobVSolicitada): when it is due and how long after it may be paid, the
// debtor, the amount with its fine and interest, the receiver's key.
type CobV struct {
	Calendario struct {
		DataDeVencimento       string `json:"dataDeVencimento"`
		ValidadeAposVencimento int    `json:"validadeAposVencimento,omitempty"`
	} `json:"calendario"`
	Devedor struct {
		CPF  string `json:"cpf,omitempty"`
		CNPJ string `json:"cnpj,omitempty"`
		Nome string `json:"nome"`
	} `json:"devedor"`
	Valor struct {
		Original string    `json:"original"`
		Multa    *Modality `json:"multa,omitempty"`
		Juros    *Modality `json:"juros,omitempty"`
	} `json:"valor"`
	Chave              string `json:"chave"`
	SolicitacaoPagador string `json:"solicitacaoPagador,omitempty"`
}

// Modality is a fine's or interest's kind (the API Pix's table: 2 a
// percentage) and its value.
type Modality struct {
	Modalidade int    `json:"modalidade"`
	ValorPerc  string `json:"valorPerc"`
}

// Cob is the PSP's charge: its state (ATIVA, CONCLUIDA,
// REMOVIDA_PELO_USUARIO_RECEBEDOR, REMOVIDA_PELO_PSP), its BR Code and the
// Pix paid to it.
type Cob struct {
	Txid          string `json:"txid"`
	Revisao       int    `json:"revisao"`
	Status        string `json:"status"`
	PixCopiaECola string `json:"pixCopiaECola"`
	Loc           struct {
		Location string `json:"location"`
	} `json:"loc"`
	Valor struct {
		Original string `json:"original"`
	} `json:"valor"`
	Chave string `json:"chave"`
	Pix   []Pix  `json:"pix"`
}

// Pix is a payment the PSP received.
type Pix struct {
	EndToEndID string `json:"endToEndId"`
	Txid       string `json:"txid"`
	Valor      string `json:"valor"`
	Chave      string `json:"chave"`
	Horario    string `json:"horario"`
}

// The charge states.
const (
	Active  = "ATIVA"
	Paid    = "CONCLUIDA"
	Removed = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
)

// The kinds of charge: immediate (cob, valid for a time) or with a due
// date (cobv).
const (
	Immediate = "cob"
	WithDue   = "cobv"
)

// CobI is an immediate charge as the API Pix takes it (CobSolicitada):
// how long it lives, the debtor, the amount, the receiver's key.
type CobI struct {
	Calendario struct {
		Expiracao int `json:"expiracao"`
	} `json:"calendario"`
	Devedor *struct {
		CPF  string `json:"cpf,omitempty"`
		CNPJ string `json:"cnpj,omitempty"`
		Nome string `json:"nome"`
	} `json:"devedor,omitempty"`
	Valor struct {
		Original string `json:"original"`
	} `json:"valor"`
	Chave              string `json:"chave"`
	SolicitacaoPagador string `json:"solicitacaoPagador,omitempty"`
}

// TxIDPattern is a txid fincom chooses: 26 to 35 letters and digits.
var TxIDPattern = regexp.MustCompile(`^[a-zA-Z0-9]{26,35}$`)

// PutCobV creates the charge txid at the PSP (PUT /cobv/{txid}), its body
// held to the published schema first. A retry after a lost answer is the
// same PUT: when the PSP already holds the charge for the same key and
// amount, it is the answer (never a second charge).
func (c *Client) PutCobV(ctx context.Context, txid string, b CobV) (Cob, error) {
	return c.put(ctx, WithDue, txid, b, b.Chave, b.Valor.Original)
}

// PutCob creates the immediate charge txid at the PSP (PUT /cob/{txid})
// as PutCobV does.
func (c *Client) PutCob(ctx context.Context, txid string, b CobI) (Cob, error) {
	return c.put(ctx, Immediate, txid, b, b.Chave, b.Valor.Original)
}

// put creates a charge of a kind, its body held to the published schema.
func (c *Client) put(ctx context.Context, kind, txid string, b any, key, amount string) (Cob, error) {
	if !TxIDPattern.MatchString(txid) {
		return Cob{}, fmt.Errorf("%w: txid %q", apipix.ErrMessage, txid)
	}
	body, err := json.Marshal(b)
	if err != nil {
		return Cob{}, err
	}
	if err := apipix.ValidateBody(http.MethodPut, "/"+kind+"/{txid}", body); err != nil {
		return Cob{}, err
	}
	var out Cob
	err = c.call(ctx, http.MethodPut, "/"+kind+"/"+txid, json.RawMessage(body), &out)
	var p *Problem
	if errors.As(err, &p) && p.Status < 500 && p.Status != http.StatusUnauthorized {
		// Created before, its answer lost: the same charge is the answer.
		if held, gerr := c.Get(ctx, kind, txid); gerr == nil && held.Chave == key && held.Valor.Original == amount {
			return held, nil
		}
	}
	if err != nil {
		return Cob{}, err
	}
	return out, checkCob(out, txid)
}

// Get asks the PSP for the charge txid of a kind (GET /cob/{txid}, GET
// /cobv/{txid}).
func (c *Client) Get(ctx context.Context, kind, txid string) (Cob, error) {
	if !TxIDPattern.MatchString(txid) || (kind != Immediate && kind != WithDue) {
		return Cob{}, fmt.Errorf("%w: %s %q", apipix.ErrMessage, kind, txid)
	}
	var out Cob
	if err := c.call(ctx, http.MethodGet, "/"+kind+"/"+txid, nil, &out); err != nil {
		return Cob{}, err
	}
	return out, checkCob(out, txid)
}

// Remove has the PSP remove the charge txid of a kind (PATCH with status
// REMOVIDA_PELO_USUARIO_RECEBEDOR) and answers it once removed.
func (c *Client) Remove(ctx context.Context, kind, txid string) (Cob, error) {
	body := []byte(`{"status":"` + Removed + `"}`)
	if err := apipix.ValidateBody(http.MethodPatch, "/"+kind+"/{txid}", body); err != nil {
		return Cob{}, err
	}
	var out Cob
	if err := c.call(ctx, http.MethodPatch, "/"+kind+"/"+txid, json.RawMessage(body), &out); err != nil {
		return Cob{}, err
	}
	if err := checkCob(out, txid); err != nil {
		return Cob{}, err
	}
	if out.Status != Removed {
		return Cob{}, fmt.Errorf("%w: the charge is %s, not removed", ErrAnswer, out.Status)
	}
	return out, nil
}

// checkCob holds a charge the PSP answered to what fincom asked: its txid,
// a known state, and, active, a BR Code whose CRC holds or, since the API
// Pix makes pixCopiaECola optional (CobGerada, CobVGerada, CobCompleta),
// a location to build one from (BRCode).
func checkCob(c Cob, txid string) error {
	switch {
	case c.Txid != txid:
		return fmt.Errorf("%w: the charge %q answered for %s", ErrAnswer, c.Txid, txid)
	case c.Status != Active && c.Status != Paid && c.Status != Removed && c.Status != "REMOVIDA_PELO_PSP":
		return fmt.Errorf("%w: the charge's status %q", ErrAnswer, c.Status)
	case c.Status == Active && c.PixCopiaECola != "" && !pix.Valid(c.PixCopiaECola):
		return fmt.Errorf("%w: the charge's pixCopiaECola is not a BR Code", ErrAnswer)
	case c.Status == Active && c.PixCopiaECola == "" && (len(c.Loc.Location) > 77 || !locationPattern.MatchString(c.Loc.Location)):
		return fmt.Errorf("%w: the charge has neither pixCopiaECola nor a location", ErrAnswer)
	}
	return nil
}

// locationPattern is a charge's payload location as the API Pix gives it
// (a host and path, no scheme) that a BR Code can carry: at most 77
// printable characters.
var locationPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]+)?/[!-~]+$`)

// BRCode is the charge's BR Code to show the payer: the PSP's
// pixCopiaECola, else the dynamic code of its location (the BR Code
// manual: the br.gov.bcb.pix GUI, the location, the receiver's name and
// city), as payers' apps read it.
func (c Cob) BRCode(merchantName, merchantCity string) (string, error) {
	if c.PixCopiaECola != "" {
		return c.PixCopiaECola, nil
	}
	code, err := pix.Code{URL: c.Loc.Location, Name: merchantName, City: merchantCity}.Payload()
	if err != nil {
		return "", fmt.Errorf("%w: the charge's location: %v", ErrAnswer, err)
	}
	return code, nil
}

// GetPix asks the PSP for a Pix it received (GET /pix/{e2eid}): the
// webhook only says "look", this says what was paid, to which charge and
// key.
func (c *Client) GetPix(ctx context.Context, endToEndID string) (Pix, error) {
	if !e2ePattern.MatchString(endToEndID) {
		return Pix{}, fmt.Errorf("%w: end-to-end id %q", apipix.ErrMessage, endToEndID)
	}
	var p Pix
	if err := c.call(ctx, http.MethodGet, "/pix/"+endToEndID, nil, &p); err != nil {
		return Pix{}, err
	}
	if p.EndToEndID != endToEndID || p.Valor == "" || p.Horario == "" {
		return Pix{}, fmt.Errorf("%w: the Pix %q answered for %s", ErrAnswer, p.EndToEndID, endToEndID)
	}
	return p, nil
}

// e2ePattern is a Pix's end-to-end id (32 characters: E, the payer's
// ISPB, the time, a sequence).
var e2ePattern = regexp.MustCompile(`^[a-zA-Z0-9]{32}$`)

// PutWebhook registers the URL the PSP posts the key's payments to (PUT
// /webhook/{chave}; the PSP appends /pix).
func (c *Client) PutWebhook(ctx context.Context, key, url string) error {
	body, err := json.Marshal(map[string]string{"webhookUrl": url})
	if err != nil {
		return err
	}
	if err := apipix.ValidateBody(http.MethodPut, "/webhook/{chave}", body); err != nil {
		return err
	}
	return c.call(ctx, http.MethodPut, "/webhook/"+neturl.PathEscape(key), json.RawMessage(body), nil)
}

package api

import (
	"encoding/json"
	"net/http"

	"fincom/server/psp"
	"fincom/server/web"
	"fincom/store"
)

// pspHooks answers the PSPs' webhooks.
type pspHooks struct{ *API }

// errHookUnknown: no unit's webhook has this address.
var errHookUnknown = web.NewError(http.StatusNotFound, "Unknown webhook.")

// errHookBody: a webhook body that is not the API Pix's.
var errHookBody = web.NewError(http.StatusBadRequest, "The webhook's body is not the API Pix's.")

// hookUnit resolves a webhook's secret path part to its domain and unit,
// and reads the ids its body lists under list (at most 100; field is
// each item's id): the API Pix's callbacks (pix, recs, cobsr).
func (s pspHooks) hookUnit(r *web.Request, list, field string) (db *store.DB, release func(), unitID int64, ids []string, err error) {
	if !s.Limiter.Allow(r.HTTP) {
		return nil, nil, 0, nil, web.ErrTooManyRequests
	}
	secret := r.Params.ByName("secret")
	name, ok := store.WebhookDomain(secret)
	if !ok {
		return nil, nil, 0, nil, errHookUnknown
	}
	db, release, err = s.Domains.Acquire(r.Ctx, name)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	unitID, err = db.PSPUnitByWebhook(r.Ctx, secret)
	if err != nil {
		release()
		return nil, nil, 0, nil, err
	}
	// The body was read, bounded, by the route's reader.
	var items []map[string]json.RawMessage
	if json.Unmarshal(r.Body.Fields[list], &items) != nil || len(items) == 0 || len(items) > 100 {
		release()
		return nil, nil, 0, nil, errHookBody
	}
	for _, it := range items {
		var id string
		if json.Unmarshal(it[field], &id) != nil || id == "" || len(id) > 64 {
			release()
			return nil, nil, 0, nil, errHookBody
		}
		ids = append(ids, id)
	}
	return db, release, unitID, ids, nil
}

// pixHook (POST /psp/:secret/pix) is the API Pix's callback: the PSP says
// Pix arrived for the unit whose webhook this is. It only says "look":
// each endToEndId is confirmed with the PSP (GET /pix/{e2eid}) before any
// charge is paid, so a forged or replayed webhook settles nothing.
func (s pspHooks) pixHook(r *web.Request) (any, error) {
	db, release, unitID, ids, err := s.hookUnit(r, "pix", "endToEndId")
	if err != nil {
		return nil, err
	}
	defer release()
	applied, err := s.Billing.PixHook(r.Ctx, db, unitID, ids)
	if err != nil {
		s.Log.Warn("PSP webhook: a Pix not confirmed", "domain", db.Name, "err", err)
	}
	return map[string]int{"applied": len(applied)}, nil
}

// recHook (POST /psp/:secret/rec) is the API Pix's recurrence callback:
// each idRec is asked of the PSP; an approval accepts the contract's PIX
// automático and issues its first charge.
func (s pspHooks) recHook(r *web.Request) (any, error) {
	db, release, unitID, ids, err := s.hookUnit(r, "recs", "idRec")
	if err != nil {
		return nil, err
	}
	defer release()
	changed, err := s.Billing.RecHook(r.Ctx, db, unitID, ids)
	if err != nil {
		s.Log.Warn("PSP webhook: a recurrence not followed", "domain", db.Name, "err", err)
	}
	return map[string]int{"changed": changed}, nil
}

// cobrHook (POST /psp/:secret/cobr) is the API Pix's recurrent-charge
// callback: each txid is asked of the PSP and the Pix it concluded with
// applied.
func (s pspHooks) cobrHook(r *web.Request) (any, error) {
	db, release, unitID, ids, err := s.hookUnit(r, "cobsr", "txid")
	if err != nil {
		return nil, err
	}
	defer release()
	applied, err := s.Billing.CobRHook(r.Ctx, db, unitID, ids)
	if err != nil {
		s.Log.Warn("PSP webhook: a recurrent charge not settled", "domain", db.Name, "err", err)
	}
	return map[string]int{"applied": len(applied)}, nil
}

type pixAutomaticoRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true" doc:"The contract's token."`
	// The payer's account, for the request to reach the payer's bank
	// app (all three, or none: the QR Code alone).
	PayerISPB    string `json:"payer_ispb" pattern:"^([0-9A-Z]{8})?$" doc:"The payer's bank's ISPB: 8 digits or capital letters."`
	PayerAgency  string `json:"payer_agency" doc:"The payer's branch (up to 4 digits)."`
	PayerAccount string `json:"payer_account" doc:"The payer's account number (up to 20 characters)."`
}

var errPayerAccount = web.NewError(http.StatusBadRequest, "Give the payer's account whole (payer_ispb: 8 digits; payer_account: up to 20 characters; payer_agency: up to 4 digits) or not at all.")

// ispb is a bank's ISPB (8 digits or capital letters), or none.
var ispb = web.TagPattern(pixAutomaticoRequest{}, "PayerISPB")

func (q *pixAutomaticoRequest) Validate() error {
	if q.PayerISPB == "" && q.PayerAccount == "" && q.PayerAgency == "" {
		return nil
	}
	if q.PayerISPB == "" || !ispb.MatchString(q.PayerISPB) || q.PayerAccount == "" || len(q.PayerAccount) > 20 || len(q.PayerAgency) > 4 {
		return errPayerAccount
	}
	return nil
}

// requestPixAutomatico asks the unit's PSP for the contract's PIX
// automático recurrence (billing.Service.RequestPixAutomatico).
func (s contracts) requestPixAutomatico(r *web.Request, q *pixAutomaticoRequest) (any, error) {
	var to *psp.Account
	if q.PayerISPB != "" {
		to = &psp.Account{ISPB: q.PayerISPB, Agency: q.PayerAgency, Number: q.PayerAccount}
	}
	rec, err := s.Billing.RequestPixAutomatico(r.Ctx, r.DB, r.Unit.ID, q.IDToken, to)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "PIX automático requested.", Data: rec}, nil
}

const (
	docPSPHook = "The address a unit connected to its PSP (`fincom unit psp`) registers as its webhook, followed by `/pix` as the API Pix's " +
		"callback does: `{\"pix\": [{\"endToEndId\": …}, …]}` (at most 100). Each Pix is asked of the PSP (`GET /pix/{e2eid}`) and applied " +
		"only as the PSP answers it, once whatever told of it; the answer says how many were applied. An unknown address is 404, a body " +
		"without Pix 400."
	docRecHook = "The same address followed by `/rec` (the API Pix's `webhookrec` callback): `{\"recs\": [{\"idRec\": …}, …]}`. Each " +
		"recurrence is asked of the PSP (`GET /rec/{idRec}`) and recorded as it answers; an approval (`APROVADA`) accepts the contract's " +
		"PIX automático (its order due in 30 days) and issues its first charge at the PSP at once. The answer says how many changed."
	docCobRHook = "The same address followed by `/cobr` (the API Pix's `webhookcobr` callback): `{\"cobsr\": [{\"txid\": …}, …]}`. Each " +
		"charge is asked of the PSP (`GET /cobr/{txid}`) and the Pix it concluded with applied, once. The answer says how many were applied."
	docRequestPixAutomatico = "Asks the unit's PSP for the PIX automático recurrence of a contract (`id_token`; a fincom route) whose order " +
		"has `requested_payment_mode` `PIX_AUTOMATICO`: `POST /rec` of the Banco Central's API Pix for the order's value, monthly or yearly " +
		"as the contract recurs, the first payment 30 days from today, until its `validity_end`. The payer approves it by the QR Code " +
		"of its `location` or, given `payer_ispb`, `payer_agency` and `payer_account`, in the payer's bank app (`POST /solicrec`). The " +
		"PSP's approval (webhook or poll) accepts the contract and issues its first charge, due in 30 days; each later cycle's charge " +
		"is a `PUT /cobr/{txid}` the payer's PSP debits on its day. A contract with a recurrence waiting or approved answers it. 409 " +
		"when the order is not PIX automático, 422 for a contract that does not recur monthly or yearly, a contact without CPF or CNPJ, " +
		"or a unit without a PSP."
)

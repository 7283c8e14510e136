package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"fincom/server/bank"
	"fincom/server/billing"
	"fincom/server/web"
	"fincom/store"
)

// bankFiles handles the routes of the banks' files (remittances, returns) (routes.go).
type bankFiles struct{ *API }

// The routes of a firm's bank channels (fincom routes): the CNAB 240
// remittance it uploads to its bank, the return file it downloads from
// it, and the payments it received elsewhere.

var (
	errNotReturn      = web.NewError(http.StatusBadRequest, "Not a CNAB 240 return file of this bank: nothing was applied.")
	errRemittanceGone = web.NewError(http.StatusNotFound, "Remittance not found: no file of that sequence was written for this provider's agreement.")
	errForeignReturn  = web.NewError(http.StatusUnprocessableEntity, "This return file is another beneficiary's: its header's CNPJ, agency, account or agreement (details.fields) are not the unit's agreement's. Nothing was applied.")
)

type remittanceRequest struct {
	Provider string `json:"provider" enum:"provider_a,provider_b,provider_c" required:"true" doc:"The bank agreement whose remittance is written."`
	// Sequence downloads a remittance already written again.
	Sequence *web.FlexInt `json:"sequence" doc:"An earlier remittance's sequence, to download it again; absent: the next one."`
}

// remittanceFile answers a remittance as the bank takes it: text/plain,
// 240 columns a record, CRLF, named by the bank's convention.
type remittanceFile struct{ store.Remittance }

func (d remittanceFile) Write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=us-ascii")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="REM_%s_%06d.rem"`, d.Provider, d.Sequence))
	h.Set("Content-Length", strconv.Itoa(len(d.Content)))
	h.Set("X-Remittance-Sequence", strconv.Itoa(d.Sequence))
	h.Set("X-Remittance-Titles", strconv.Itoa(d.Titles))
	w.WriteHeader(http.StatusOK)
	w.Write(d.Content)
}

// exportRemittance writes the unit's next remittance for the provider's
// bank (the boletos issued and cancelled since the last one), or answers
// an earlier one again by its sequence.
func (s bankFiles) exportRemittance(r *web.Request, q *remittanceRequest) (any, error) {
	if q.Sequence != nil {
		rm, err := r.DB.RemittanceFile(r.Ctx, r.Unit.ID, q.Provider, int(*q.Sequence))
		if err != nil {
			return nil, err
		}
		return remittanceFile{rm}, nil
	}
	rm, err := s.Billing.ExportRemittance(r.Ctx, r.DB, r.Unit, q.Provider)
	if err != nil {
		return nil, err
	}
	return remittanceFile{rm}, nil
}

type returnRequest struct {
	// Provider is the bank's provider; absent, the file's bank code says.
	Provider string `json:"provider" enum:"provider_a,provider_b,provider_c" doc:"The bank agreement the return file is of (default: the bank its first columns name)."`
}

// importReturn applies a bank's return file (multipart: metadata with the
// tokens and provider, the file as files).
func (s bankFiles) importReturn(r *web.Request, q *returnRequest) (any, error) {
	if len(r.Body.Files) != 1 {
		if len(r.Body.Files) == 0 {
			return nil, web.ErrNoFiles
		}
		return nil, errOneFile
	}
	f := r.Body.Files[0]
	if f.TooLarge {
		return nil, web.ErrFileTooLarge
	}
	// Without a provider, the slot whose agreement is with the bank the
	// file names.
	rep, err := s.Billing.ImportReturn(r.Ctx, r.DB, r.Unit, q.Provider, f.Name, f.Data)
	var pe *bank.ParseError
	if errors.As(err, &pe) {
		e := *errNotReturn
		e.Details = pe
		return nil, &e
	}
	var fe *billing.ForeignReturnError
	if errors.As(err, &fe) {
		return nil, errForeignReturn.With(foreignDetails{Fields: fe.Fields})
	}
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Return file applied.", Data: rep}, nil
}

// foreignDetails names the header fields of a return file that are not
// the unit's agreement's.
type foreignDetails struct {
	Fields []string `json:"fields"`
}

type settleRequest struct {
	IDToken     string       `json:"id_token" alias:"token" required:"true" doc:"The sales order paid."`
	Installment *web.FlexInt `json:"installment" doc:"The installment paid (default: the first open one)."`
	Amount      *store.Money `json:"amount" doc:"The amount received (default: the charge's)."`
	Date        string       `json:"date" format:"date" doc:"The day it was received (default: today)."`
	BankAccount string       `json:"id_token_bank_account"`
}

// settleCharge records a payment the firm received outside fincom's
// channels (cash, a transfer seen at its bank): never the payer's word.
func (s bankFiles) settleCharge(r *web.Request, q *settleRequest) (any, error) {
	inst := 0
	if q.Installment != nil {
		inst = int(*q.Installment)
	}
	p, err := s.Billing.SettleReceived(r.Ctx, r.DB, r.Unit.ID, q.IDToken, inst, q.Amount, q.Date, q.BankAccount)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Payment recorded.", Data: p}, nil
}

const (
	docExportRemittance = "Writes the unit's next CNAB 240 remittance for the bank of the provider slot's agreement (by default `provider_a` Itaú, " +
		"`provider_b` Bradesco, `provider_c` Santander; Banco do Brasil or Caixa behind any slot the agreement names): a segment P, Q and R for each boleto issued since the last file and a write-off request for each " +
		"registered one cancelled since, in the positions of FEBRABAN's CNAB 240 and the bank's own manual, 240 columns a record, CRLF. " +
		"Files are numbered in sequence and kept: `sequence` answers an earlier one again. Answers the file (`text/plain`); 409 when " +
		"there is nothing to send; 422 when the unit has no production agreement with the bank (`fincom unit agreement`), or when a boleto's customer " +
		"was changed since its charge and lacks what the bank needs (`details.missing`, as `/generate_charge`): nothing is written " +
		"until the contact is complete."
	docImportReturn = "Applies the bank's CNAB 240 return file (multipart: `metadata` with the tokens and `provider`, the file as `files`) " +
		"of the agreement in the `provider` slot (without it, the slot whose agreement is with the bank the file's first columns name, of several the one its header names) in one transaction: boletos registered, rejected (with the bank's reason), paid (settled as every confirmed payment: income " +
		"entry with `in_automation` on the agreement's account, `conciliation`, `generateNFWebhook`, `charge.paid`; the bank's date, fee " +
		"and credit date kept) and written off. Answers what each line did; a line naming no charge is reported, never dropped. The " +
		"same file twice changes nothing (`duplicate`). A malformed file is refused whole (400) with `details.Line` and `details.Column`; an amount or fee beyond " +
		"9999999999.99 refuses it whole too (400 `Invalid amount. …`). A file whose header names another beneficiary than the unit's " +
		"agreement (CNPJ, agency, account, agreement or transmission code) applies nothing (422, the fields in `details.fields`); a " +
		"payment dated after today, or undated, is reported as `not_settled`."
	docSettleCharge = "Records a payment the firm received outside fincom's channels (cash, a transfer it saw at its bank) for the order's " +
		"open charge (`installment`, else the first open one): `amount` (else the charge's), `date` (else today) and the account " +
		"credited (`id_token_bank_account`, else the agreement's or the order's), with the effects of a confirmed payment. Audited: " +
		"only the firm records payments, never the payer."
)

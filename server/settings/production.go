package settings

import (
	"context"
	"errors"
	"strings"

	"fincom/server/brdoc"
	"fincom/server/fiscal/sefaz"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/store"
)

// ErrNotReady: a unit goes to production only with its A1 certificate
// and the fiscal profile its notes carry.
var ErrNotReady = problem.New(problem.Unprocessable, "the unit lacks what issuing in production needs")

// NotReady is ErrNotReady with what the unit lacks, by the field names
// of `fincom unit set` (certificate: `fincom unit cert`).
type NotReady struct{ Missing []string }

func (e NotReady) Error() string {
	return ErrNotReady.Text + ": " + strings.Join(e.Missing, ", ")
}
func (e NotReady) Unwrap() error { return ErrNotReady.With(map[string]any{"missing": e.Missing}) }

// Missing is what the unit lacks to issue in production: its certificate,
// and its profile's CNPJ, municipality, address, IE and regime (the
// normal regime's rates too).
func Missing(u store.Unit, p store.UnitProfile, hasCertificate bool) []string {
	var out []string
	if !hasCertificate {
		out = append(out, "certificate")
	}
	if !brdoc.ValidCNPJ(u.CNPJ) {
		out = append(out, "cnpj")
	}
	if _, ok := brdoc.LookupIBGE(u.CityIBGE); !ok {
		out = append(out, "city")
	}
	for _, f := range []struct{ name, v string }{{"street", p.Street}, {"number", p.Number}, {"district", p.District}, {"zip", p.Zip}, {"ie", p.IE}} {
		if f.v == "" {
			out = append(out, f.name)
		}
	}
	if p.CRT == 0 {
		out = append(out, "crt")
	}
	if p.CRT == 3 && (p.ICMSRate == "" || p.PISRate == "" || p.COFINSRate == "") {
		out = append(out, "icms-rate", "pis-rate", "cofins-rate")
	}
	return out
}

// hasCertificate reports whether the unit has an A1 certificate installed.
func hasCertificate(ctx context.Context, db *store.DB, unitID int64) (bool, error) {
	_, err := db.Certificate(ctx, unitID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// AskProduction is the first step of going to production: it refuses a
// unit that is not ready (NotReady), then asks the SEFAZ of its state
// for the production service's status, which the owner sees before
// confirming (Set with Environment producao).
func AskProduction(ctx context.Context, db *store.DB, inv *invoicing.Service, unitToken string) (sefaz.Status, error) {
	u, err := db.UnitByToken(ctx, unitToken)
	if err != nil {
		return sefaz.Status{}, err
	}
	p, err := db.UnitProfile(ctx, u.ID)
	if err != nil {
		return sefaz.Status{}, err
	}
	has, err := hasCertificate(ctx, db, u.ID)
	if err != nil {
		return sefaz.Status{}, err
	}
	if missing := Missing(u, p, has); len(missing) > 0 {
		return sefaz.Status{}, refuse("fiscal-environment", NotReady{Missing: missing})
	}
	return inv.ServiceStatus(ctx, db, u, sefaz.Producao)
}

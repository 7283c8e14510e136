package settings

import (
	"context"
	"errors"

	"fincom/store"
)

// Step is one of the first steps a unit takes before it invoices and
// charges: its key (profile, certificate, environment, pix, bank) and
// whether it is done.
type Step struct {
	Key  string
	Done bool
}

// FirstSteps are a unit's first steps in order, each done or not: its
// company and fiscal profile, its A1 certificate, production, a way to
// take PIX (its own key or a PSP) and a bank agreement for boletos (a
// simulated one, test mode's, does not count).
func FirstSteps(ctx context.Context, db *store.DB, u store.Unit) ([]Step, error) {
	p, err := db.UnitProfile(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	certified, err := hasCertificate(ctx, db, u.ID)
	if err != nil {
		return nil, err
	}
	pix := p.PixKey != ""
	if !pix {
		if _, err := db.UnitPSP(ctx, u.ID); err == nil {
			pix = true
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	agreements, err := db.Agreements(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	bank := false
	for _, a := range agreements {
		bank = bank || !a.Simulated
	}
	return []Step{{"profile", len(Missing(u, p, true)) == 0}, {"certificate", certified}, {"environment", p.FiscalEnvironment == store.Producao}, {"pix", pix},
		{"bank", bank}}, nil
}

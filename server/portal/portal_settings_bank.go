package portal

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"fincom/render"
	"fincom/server/bank"
	"fincom/server/billing"
	"fincom/server/settings"
	"fincom/store"
)

// The Cobrança bancária section of a unit's Configurações: each provider
// slot's agreement and bank, and the remittances.

// providers are the spec's provider slots, in order.
var providers = []string{"provider_a", "provider_b", "provider_c"}

// banksOf are the unit's provider slots with their agreements (typed,
// by provider, where a form was refused) and its remittances.
func (s *Portal) banksOf(p *portalRequest, typed map[string]render.PortalAgreementForm) ([]render.PortalBank, []render.PortalRemittance, error) {
	var out []render.PortalBank
	names := map[string]string{}
	for _, prov := range providers {
		a, err := p.db.Agreement(p.ctx, p.unit.ID, prov)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, nil, err
		}
		pb := render.PortalBank{Provider: prov}
		if err == nil {
			pb.Set, pb.Simulated = true, a.Simulated
			pb.Form = render.PortalAgreementForm{Agency: withDigit(a.Agency, a.AgencyDV), Account: withDigit(a.Account, a.AccountDV), Wallet: a.Wallet,
				Code: a.Code, Next: strconv.FormatInt(a.NextOurNumber, 10), Bank: a.Bank, Fine: strings.ReplaceAll(a.FinePercent.String(), ".", ","),
				Interest: strings.ReplaceAll(a.InterestPercent.String(), ".", ","), Variation: a.Variation}
		}
		if f, ok := typed[prov]; ok {
			pb.Form = f
		}
		// The bank behind the slot: the one typed or agreed, else the
		// slot's own; its wallets.
		b, ok := bank.Of(pb.Form.Bank, prov)
		if !ok {
			b, _ = bank.ByProvider(prov)
		}
		pb.Name, pb.Form.Bank, names[prov] = b.Name, b.Code, b.Name
		for _, w := range b.Wallets() {
			pb.Wallets = append(pb.Wallets, render.PortalOption{Value: w, Label: w})
		}
		for _, code := range bank.Codes() {
			other, _ := bank.ByCode(code)
			// Its wallets, for the page's script to offer when it is chosen.
			pb.Banks = append(pb.Banks, render.PortalOption{Value: code, Label: other.Name + " (" + code + ")", Data: strings.Join(other.Wallets(), ",")})
		}
		out = append(out, pb)
	}
	made, err := p.db.Remittances(p.ctx, p.unit.ID)
	if err != nil {
		return nil, nil, err
	}
	var rems []render.PortalRemittance
	for _, r := range made {
		rems = append(rems, render.PortalRemittance{Bank: names[r.Provider], Created: render.DateTimeBR(r.Created.Time()), Sequence: r.Sequence, Titles: r.Titles,
			Link: "/portal/settings/remittance?unit=" + url.QueryEscape(p.unit.Token) + "&provider=" + r.Provider + "&seq=" + strconv.Itoa(r.Sequence)})
	}
	return out, rems, nil
}

// slotBanks are the provider slots as a person chooses among them: each
// named by the bank of the unit's agreement behind it (the slot's own
// bank when it has none); a bank behind two slots is told apart by the
// agency and account.
func (s *Portal) slotBanks(p *portalRequest) ([]render.PortalOption, error) {
	var out []render.PortalOption
	seen := map[string]int{}
	details := map[string]string{}
	for _, prov := range providers {
		a, err := p.db.Agreement(p.ctx, p.unit.ID, prov)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		b, ok := bank.Of(a.Bank, prov)
		if !ok {
			b, _ = bank.ByProvider(prov)
		}
		seen[b.Name]++
		if a.ID != 0 {
			details[prov] = " (ag. " + withDigit(a.Agency, a.AgencyDV) + ", conta " + withDigit(a.Account, a.AccountDV) + ")"
		}
		out = append(out, render.PortalOption{Value: prov, Label: b.Name})
	}
	for i, o := range out {
		if seen[o.Label] > 1 {
			out[i].Label += cmp.Or(details[o.Value], " ("+o.Value+")")
		}
	}
	return out, nil
}

// withDigit writes a number with its check digit, as people type it.
func withDigit(n, dv string) string {
	if dv == "" {
		return n
	}
	return n + "-" + dv
}

// portalSettingsAgreement: POST /portal/settings/agreement sets the
// unit's agreement of a provider slot, as `fincom unit agreement` does.
func (s *Portal) portalSettingsAgreement(p *portalRequest) {
	prov := p.r.PostFormValue("provider")
	v := func(k string) string { return strings.TrimSpace(p.r.PostFormValue(prov + "-" + k)) }
	form := render.PortalAgreementForm{Agency: v("agency"), Account: v("account"), Wallet: v("wallet"), Code: v("agreement"), Next: v("next-our-number"),
		Bank: v("bank"), Fine: v("fine-percent"), Interest: v("interest-percent"), Variation: v("variation")}
	in := settings.AgreementInput{Provider: prov, Agency: form.Agency, Account: form.Account, Wallet: form.Wallet, Code: form.Code, Bank: form.Bank,
		FinePercent: form.Fine, InterestPercent: form.Interest, Variation: form.Variation}
	// The sequence moves only when the owner changes it.
	if was, err := p.db.Agreement(p.ctx, p.unit.ID, prov); err != nil || strconv.FormatInt(was.NextOurNumber, 10) != form.Next {
		in.NextOurNumber = form.Next
	}
	_, err := settings.SetAgreement(p.ctx, p.db, p.unit, in)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, func(f *render.PortalSettingsForm) {
			f.Agreement = map[string]render.PortalAgreementForm{prov: form}
		}, "bank", prov+"-"+field, words, "")
	}) {
		return
	}
	settingsSaved(p, "convenio")
}

// portalRemittance: POST /portal/settings/remittance makes the unit's
// next CNAB 240 remittance for a provider's bank and downloads it;
// GET with seq downloads one made before again.
func (s *Portal) portalRemittance(p *portalRequest) {
	q := p.r.URL.Query()
	prov := cmp.Or(p.r.PostFormValue("provider"), q.Get("provider"))
	var rm store.Remittance
	var err error
	if seq, e := strconv.Atoi(q.Get("seq")); e == nil && p.r.Method == http.MethodGet {
		rm, err = p.db.RemittanceFile(p.ctx, p.unit.ID, prov, seq)
		if s.readFailed(p, err, "Remessa", "units") {
			return
		}
	} else if rm, err = s.Billing.ExportRemittance(p.ctx, p.db, p.unit, prov); err != nil {
		field := prov + "-remittance"
		switch {
		case errors.Is(err, store.ErrNothingToRemit):
			s.settingsPage(p, http.StatusConflict, nil, "bank", field, "nada a remeter: nenhum boleto foi emitido ou cancelado desde a última remessa.", "")
		case errors.Is(err, store.ErrNoAgreement), errors.Is(err, billing.ErrUnknownBank):
			s.settingsPage(p, http.StatusBadRequest, nil, "bank", field, "a unidade não tem convênio com este banco: cadastre-o acima.", "")
		default:
			s.portalFailed(p, err)
		}
		return
	}
	download(p, "text/plain; charset=us-ascii", fmt.Sprintf(`attachment; filename="remessa-%s-%d.rem"`, prov, rm.Sequence), rm.Content)
}

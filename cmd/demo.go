package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fincom/server"
	"fincom/server/bank"
	"fincom/server/portal"
	"fincom/server/settings"
	"fincom/server/testmode"
	"fincom/store"
)

const demoDomain = "demo"

// demoUser is the demo's portal user.
const demoUser = "ana@demo.fincom.local"

func newDemoCmd(a *app) *cobra.Command {
	var o serveOptions
	var banks []string
	c := &cobra.Command{
		Use:   "demo",
		Short: "Create (or reuse) the domain 'demo' with sample data, print its tokens, and serve",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.seeded = cmd.Flags().Changed("seed")
			// Locked first: a second demo on the same directory stops
			// here, before it prints tokens of a server it cannot start.
			unlock, err := lockDataDir(a.dataDir)
			if err != nil {
				return err
			}
			defer unlock()
			o.locked = true
			if err := a.prepareDemo(cmd.Context(), o.addr, banks...); err != nil {
				return err
			}
			// The demo is for trying things: test mode is on.
			o.testMode = true
			return a.serve(cmd.Context(), o)
		},
	}
	o.flags(c, a)
	c.Flags().StringSliceVar(&banks, "bank", nil, "put a bank behind a slot of the demo's first unit, SLOT=CODE (provider_a=001: Banco do Brasil; "+
		"provider_b=104: Caixa), with the bank's sample agreement, simulated")
	return c
}

// demoBankFlag reads a --bank SLOT=CODE: the slot, the bank's code and
// its sample agreement.
func demoBankFlag(slotCode string) (slot, code string, ag bank.Agreement, err error) {
	slot, code, ok := strings.Cut(slotCode, "=")
	ag, known := bank.SampleOf(code)
	if _, isSlot := bank.ByProvider(slot); !ok || !known || !isSlot {
		return "", "", ag, fmt.Errorf("--bank %s: use SLOT=CODE, a slot (provider_a, provider_b, provider_c) and a bank's code (%s)", slotCode,
			strings.Join(bank.Codes(), ", "))
	}
	return slot, code, ag, nil
}

// demoBank puts the bank of code behind the slot of the demo's unit, with
// the bank's sample agreement (simulated: the demo runs in test mode).
func demoBank(ctx context.Context, db *store.DB, u store.Unit, slotCode string) (string, error) {
	slot, code, ag, err := demoBankFlag(slotCode)
	if err != nil {
		return "", err
	}
	if _, err := settings.SetAgreement(ctx, db, u, settings.AgreementInput{Provider: slot, Bank: code, Agency: ag.Agency + "-" + ag.AgencyDV,
		Account: ag.Account + "-" + ag.AccountDV, Wallet: ag.Wallet, Code: ag.Code, Variation: ag.Variation, Simulated: true}); err != nil {
		return "", fmt.Errorf("--bank %s: %w", slotCode, err)
	}
	b, _ := bank.ByCode(code)
	return fmt.Sprintf("%s: %s (%s), its sample agreement (simulated)", slot, b.Name, b.Code), nil
}

// demoTokenFile keeps the demo's access token in the data directory, so
// that every start prints the same one: the demo is for trying things, and
// a token that changes each start breaks the scripts tried with it. Real
// domains keep only a hash of their tokens.
const demoTokenFile = "demo.access_token"

// prepareDemo creates the demo domain on first run: two units and sample
// registers, inserted through the API itself so that they pass the same
// validation as a client's. Every run prints the demo's access token: the
// kept one while it is valid, else a new one, kept.
func (a *app) prepareDemo(ctx context.Context, addr string, banks ...string) error {
	for _, sc := range banks {
		if _, _, _, err := demoBankFlag(sc); err != nil {
			return err
		}
	}
	ds, err := a.domains()
	if err != nil {
		return err
	}
	defer ds.Close()
	fresh := !ds.Exists(demoDomain)
	if fresh {
		if err := ds.Create(ctx, demoDomain); err != nil {
			return err
		}
	}
	db, release, err := ds.Acquire(ctx, demoDomain)
	if err != nil {
		return err
	}
	defer release()
	keep := filepath.Join(a.dataDir, demoTokenFile)
	kept, _ := os.ReadFile(keep)
	access := strings.TrimSpace(string(kept))
	if _, err := db.CheckAccessToken(ctx, access); access == "" || err != nil {
		if access, err = db.CreateAccessToken(ctx); err != nil {
			return err
		}
		if err := os.WriteFile(keep, []byte(access+"\n"), 0o600); err != nil {
			return err
		}
	}
	if fresh {
		// Complete fiscal profiles: the demo issues invoices (signed with
		// test certificates made at the first one).
		keys, err := a.keyring(true)
		if err != nil {
			return err
		}
		campinas := testmode.UnitProfile(keys)
		campinas.Street, campinas.Number, campinas.Complement, campinas.District, campinas.Zip = "Avenida Norte-Sul", "500", "", "Cambuí", "13025320"
		for _, u := range []store.UnitInput{
			{Name: "Matriz São Paulo", CNPJ: "11222333000181", CityIBGE: "3550308", IM: "12345678", Profile: testmode.UnitProfile(keys)},
			{Name: "Filial Campinas", CNPJ: "11444777000161", CityIBGE: "3509502", Profile: campinas},
		} {
			if _, err := db.CreateUnit(ctx, u); err != nil {
				return err
			}
		}
		if _, err := db.CreateUser(ctx, "Ana Operadora", demoUser); err != nil {
			return err
		}
	}
	units, err := db.Units(ctx)
	if err != nil {
		return err
	}
	var slots []string
	for _, sc := range banks {
		said, err := demoBank(ctx, db, units[0], sc)
		if err != nil {
			return err
		}
		slots = append(slots, said)
	}
	if fresh {
		sys, err := store.OpenSystem(a.dataDir, store.DurabilityFull, nil)
		if err != nil {
			return err
		}
		defer sys.Close()
		// Seeded in test mode, as the demo serves: its charges go to the
		// simulated banks, its invoices to the local authorities, signed
		// with test certificates sealed by the demo's key.
		keys, err := a.keyring(true)
		if err != nil {
			return err
		}
		srv, err := server.New(ds, sys, server.Config{Version: Version, TestMode: true, Keyring: keys})
		if err != nil {
			return err
		}
		if err := seedDemo(srv.Handler(), access, units, db.Now()); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}
	fmt.Fprintf(a.out, "demo domain ready in %s\n\naccess_token: %s\n", a.dataDir, access)
	for _, said := range slots {
		fmt.Fprintln(a.out, said)
	}
	for _, u := range units {
		fmt.Fprintf(a.out, "unit_token (%s): %s\n", u.Name, u.Token)
	}
	fmt.Fprintf(a.out, "\ntry:\n  curl -s http://%s%s/get_contacts -H 'Content-Type: application/json' -d '{\"access_token\":\"%s\",\"unit_token\":\"%s\"}'\n",
		addr, server.Prefix, access, units[0].Token)
	// The portal, and a sign-in link for the demo's user (good once, for
	// 15 minutes; `fincom user login-link demo ana@demo.fincom.local` makes
	// another).
	fmt.Fprintf(a.out, "\nportal: http://%s/portal/\n", addr)
	link, err := db.RequestLoginLink(ctx, demoUser, nil)
	switch {
	case errors.Is(err, store.ErrTooManyLinks):
		fmt.Fprintf(a.out, "sign in as %s with one of the links printed before (3 are unused)\n\n", demoUser)
	case err != nil:
		return fmt.Errorf("demo sign-in link: %w", err)
	default:
		fmt.Fprintf(a.out, "sign in as %s: %s\n\n", demoUser, portal.LoginURL("http://"+addr, link))
	}
	return nil
}

// seedDemo posts the sample registers of the first unit, and a month of
// its work around today (demoMonth).
func seedDemo(h http.Handler, access string, units []store.Unit, today time.Time) error {
	post := func(path string, body map[string]any) (map[string]any, error) {
		body["access_token"], body["unit_token"] = access, units[0].Token
		b, _ := json.Marshal(body)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, server.Prefix+path, bytes.NewReader(b)))
		var out map[string]any
		json.Unmarshal(rec.Body.Bytes(), &out)
		if rec.Code != http.StatusOK {
			return nil, fmt.Errorf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		return out, nil
	}
	for _, c := range []map[string]any{
		{"type": "legal", "register": "12.ABC.345/01DE-35", "socialReason": "Padaria Pão Quente Ltda", "fantasyName": "Pão Quente",
			"email": "financeiro@paoquente.com.br", "phone": "(11) 3333-4444", "zip_code": "01310-100", "state": "SP", "city": "São Paulo"},
		{"type": "natural_person", "register": "529.982.247-25", "fullName": "Maria da Silva", "email": "maria@example.com", "phone": "(11) 98888-7777"},
		{"type": "natural_person", "register": "111.444.777-35", "fullName": "João Souza", "birthDate": "15/03/1985"},
	} {
		if _, err := post("/insert_contact", c); err != nil {
			return err
		}
	}
	// The customer of the month's orders: its address is what its
	// invoices need.
	customer, err := post("/insert_contact", map[string]any{"type": "legal", "register": "45.789.123/0001-91", "socialReason": "Comercial Horizonte Ltda",
		"fantasyName": "Horizonte", "email": "financeiro@horizonte.com.br", "phone": "(11) 3222-1100", "zip_code": "01310-100", "state": "SP",
		"city": "São Paulo", "city_ibge": "3550308", "address": "Avenida Paulista", "number": "1000", "neighborhood": "Bela Vista"})
	if err != nil {
		return err
	}
	var service string
	for i, p := range []map[string]any{
		{"description": "Consultoria em gestão financeira (hora)", "type": "service", "monetary_value": "250.00", "unit": "H"},
		{"description": "Caderno universitário 200 folhas", "type": "product", "monetary_value": 24.9, "ncm": "4820.20.00", "cfop": "5102", "unit": "UN"},
	} {
		out, err := post("/insert_product_or_service", p)
		if err != nil {
			return err
		}
		if i == 0 {
			service, _ = out["token"].(string)
		}
	}
	if _, err := post("/insert_project", map[string]any{"name": "Implantação do ERP", "budget": 15000, "observation": "Projeto piloto"}); err != nil {
		return err
	}
	banks, err := post("/get_banks", map[string]any{"group_bank": "CB"})
	if err != nil {
		return err
	}
	types, err := post("/get_type_banks", map[string]any{})
	if err != nil {
		return err
	}
	var bb string
	for _, b := range banks["data"].([]any) {
		if m := b.(map[string]any); m["code_bank"] == "001" {
			bb = m["token"].(string)
		}
	}
	checking := types["data"].([]any)[0].(map[string]any)["token"]
	account, err := post("/insert_bank_account", map[string]any{"id_token_bank": bb, "id_token_bank_type": checking, "agency": "1234",
		"dv_agencia": "5", "current_account": "98765", "dv_conta": "0", "nick_name": "BB Movimento",
		"opening_balance": 10000.5, "opening_balance_date": "01/01/2026"})
	if err != nil {
		return err
	}
	contact, _ := customer["token"].(string)
	acct, _ := account["token"].(string)
	return demoMonth(h, post, access, units[0].Token, service, contact, acct, today)
}

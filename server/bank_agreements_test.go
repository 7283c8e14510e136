package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
	"fincom/server/brdoc"
	"fincom/server/settings"
)

// TestAnyBankBehindASlot: provider_a's slot with an agreement at Bradesco
// (--bank 237): its boletos are Bradesco's (bar code, our-number), its
// remittance is Bradesco's CNAB 240 and a Bradesco return of it applies;
// with an open boleto the slot's bank does not change; without --bank a
// slot keeps the bank it has.
func TestAnyBankBehindASlot(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	db, release := acquire(t, ds)
	unit, err := db.UnitByToken(context.Background(), fx.tokens["unitA"])
	if err != nil {
		t.Fatal(err)
	}
	sample := bank.Samples()["provider_b"]
	in := settings.AgreementInput{Provider: "provider_a", Bank: "237", Agency: sample.Agency + "-" + sample.AgencyDV, Account: sample.Account + "-" + sample.AccountDV,
		Wallet: sample.Wallet, Code: sample.Code}
	a, err := settings.SetAgreement(context.Background(), db, unit, in)
	release()
	if err != nil || a.Bank != "237" || a.Provider != "provider_a" {
		t.Fatalf("the agreement: %+v %v", a, err)
	}
	id := orderWith(t, h)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if line := c["boleto_barcode"].(string); !strings.HasPrefix(line, "237") || !brdoc.ValidBoleto(line) {
		t.Fatalf("not a Bradesco boleto: %v", c)
	}
	rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`)
	if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), "237") {
		t.Fatalf("not a Bradesco remittance: %d %.80s", rec.Code, rec.Body)
	}
	brad, _ := bank.ByCode("237")
	moves, ours := brad.Remitted(rec.Body.Bytes())
	if len(ours) != 1 || moves[0] != bank.MoveEntry {
		t.Fatalf("the remittance read back: %v %v", moves, ours)
	}
	sample.Name, sample.CNPJ, sample.Provider = "Acme Matriz", "11222333000181", "provider_a"
	ret, err := brad.ReturnFile(sample, 1, fixedNow, []bank.ReturnItem{{Movement: "02", Our: ours[0], Due: fixedNow, Amount: decimal.NewFromInt(1500)}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"ret.txt": ret}); rec.Code != 200 ||
		!strings.Contains(rec.Body.String(), `"outcome":"registered"`) {
		t.Fatalf("the Bradesco return: %d %s", rec.Code, rec.Body)
	}
	// Back to Itaú with the boleto open: refused; the slot keeps its bank
	// when none is named.
	db, release = acquire(t, ds)
	defer release()
	itau := bank.Samples()["provider_a"]
	back := settings.AgreementInput{Provider: "provider_a", Bank: "341", Agency: itau.Agency, Account: itau.Account + "-" + itau.AccountDV, Wallet: itau.Wallet}
	if _, err := settings.SetAgreement(context.Background(), db, unit, back); !errors.Is(err, settings.ErrBankChange) {
		t.Fatalf("the bank changed under an open boleto: %v", err)
	}
	in.Bank = ""
	if a, err := settings.SetAgreement(context.Background(), db, unit, in); err != nil || a.Bank != "237" {
		t.Fatalf("without --bank: %+v %v", a, err)
	}
	// Without a provider, the file goes to the slot whose agreement is
	// with its bank: provider_a's, not Bradesco's own slot.
	paid, err := brad.ReturnFile(sample, 2, fixedNow, []bank.ReturnItem{{Movement: "06", Our: ours[0], Due: fixedNow, Amount: decimal.NewFromInt(1500),
		Paid: decimal.NewFromInt(1500), Occurred: fixedNow, Credited: fixedNow}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := doMultipart(h, "/import_return", `{`+auth+`}`, map[string][]byte{"ret2.txt": paid}); rec.Code != 200 ||
		!strings.Contains(rec.Body.String(), `"provider":"provider_a"`) || !strings.Contains(rec.Body.String(), `"outcome":"paid"`) {
		t.Fatalf("the Bradesco return without a provider: %d %s", rec.Code, rec.Body)
	}
}

// TestBancoDoBrasilAndCaixa: a unit's agreement with Banco do Brasil (a
// 7-digit and a 4-digit convênio) or Caixa behind a slot: boletos of that
// bank, the remittance read back title by title as the bank reads it, the
// bank's return (a payment, a refusal with its reason, a write-off of a
// boleto cancelled here) applied once, and a return of another agreement
// of the same bank refused whole.
func TestBancoDoBrasilAndCaixa(t *testing.T) {
	t.Parallel()
	bb4, _ := bank.SampleOf("001")
	bb4.Code = "1234"
	for _, c := range []struct {
		name    string
		ag      bank.Agreement
		foreign func(a *bank.Agreement)
		fields  string
	}{
		{"Banco do Brasil, 7-digit convênio", must(bank.SampleOf("001")), func(a *bank.Agreement) { a.Code = "7654321" }, `["agreement"]`},
		{"Banco do Brasil, 4-digit convênio", bb4, func(a *bank.Agreement) { a.Account, a.AccountDV = "00654321", "X" }, `["account","account_dv"]`},
		{"Caixa", must(bank.SampleOf("104")), func(a *bank.Agreement) { a.Code = "123456" }, `["agreement"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, ds := newTestServer(t)
			h := s.Handler()
			agreeWith(t, ds, "provider_b", c.ag)
			b, _ := bank.ByCode(c.ag.Bank)
			ag := c.ag
			ag.Name, ag.CNPJ, ag.Provider = "Acme Matriz", "11222333000181", "provider_b"
			if err := b.Check(&ag); err != nil {
				t.Fatal(err)
			}
			var ids []string
			var ours []bank.OurNumber
			for _, v := range []string{"1500", "200", "300"} {
				id := orderWith(t, h, `"provider_a"`, `"provider_b"`, `"value":1500`, `"value":`+v)
				post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
				ch := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
				if bc := ch["boleto_barcode"].(string); !strings.HasPrefix(bc, b.Code) || !brdoc.ValidBoleto(bc) {
					t.Fatalf("not a boleto of %s: %v", b.Name, ch)
				}
				var n int64
				fmt.Sscan(ch["our_number"].(string), &n)
				o, err := b.OurNumber(ag, n)
				if err != nil {
					t.Fatal(err)
				}
				ids, ours = append(ids, id), append(ours, o)
			}
			rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_b"}`)
			moves, read := b.Remitted(rec.Body.Bytes())
			if rec.Code != 200 || fmt.Sprint(moves) != "[01 01 01]" || fmt.Sprint(read) != fmt.Sprint(ours) {
				t.Fatalf("the remittance reads back %v %v, want %v: %d %.300s", moves, read, ours, rec.Code, rec.Body)
			}
			// The third cancelled here: the bank is asked to write it off.
			post(t, h, "/cancel_charge", `{`+auth+`,"id_token":"`+ids[2]+`"}`)
			rec = do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_b"}`)
			if moves, read = b.Remitted(rec.Body.Bytes()); fmt.Sprint(moves) != "[02]" || read[0] != ours[2] {
				t.Fatalf("the write-off remittance reads back %v %v", moves, read)
			}
			day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
			items := []bank.ReturnItem{
				{Movement: "06", Our: ours[0], Document: "PV-1/1", Due: day, Amount: decimal.NewFromInt(1500), Paid: decimal.NewFromInt(1500),
					Fee: decimal.RequireFromString("2.10"), Occurred: day, Credited: day.AddDate(0, 0, 1)},
				{Movement: "03", Our: ours[1], Amount: decimal.NewFromInt(200), Reasons: "48"},
				{Movement: "09", Our: ours[2], Amount: decimal.NewFromInt(300)},
			}
			other := ag
			c.foreign(&other)
			f, _ := b.ReturnFile(other, 1, fixedNow, items)
			rec = doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_b"}`, map[string][]byte{"RET.txt": f})
			if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"fields":`+c.fields) {
				t.Fatalf("another agreement's return: %d %s", rec.Code, rec.Body)
			}
			f, _ = b.ReturnFile(ag, 1, fixedNow, items)
			var report struct {
				Data struct {
					Duplicate bool `json:"duplicate"`
					Lines     []struct {
						Outcome, Detail string
						OurNumber       int64 `json:"our_number"`
					} `json:"lines"`
				} `json:"data"`
			}
			booked := 0
			for i, want := range []string{"paid rejected written_off", "paid rejected written_off", "already_paid rejected written_off"} {
				if i == 2 {
					f, _ = b.ReturnFile(ag, 2, fixedNow, items)
				}
				// The first import names no provider: the slot whose
				// agreement is with the file's bank takes it.
				meta := `{` + auth + `,"provider":"provider_b"}`
				if i == 0 {
					meta = `{` + auth + `}`
				}
				rec = doMultipart(h, "/import_return", meta, map[string][]byte{"RET.txt": f})
				report.Data.Lines = nil
				json.Unmarshal(rec.Body.Bytes(), &report)
				var got []string
				for j, l := range report.Data.Lines {
					got = append(got, l.Outcome)
					if l.OurNumber != int64(j+1) {
						t.Errorf("line %d names our-number %d", j+1, l.OurNumber)
					}
				}
				if rec.Code != 200 || strings.Join(got, " ") != want || report.Data.Duplicate != (i == 1) {
					t.Fatalf("import %d: %d %s", i+1, rec.Code, rec.Body)
				}
				// The payment is booked by the first import alone.
				entries := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any)
				if n := len(entries); i == 0 {
					booked = n
				} else if n != booked {
					t.Fatalf("import %d booked again: %d entries, %d after the first", i+1, n, booked)
				}
			}
			charge := func(id string) map[string]any {
				return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
			}
			if ch := charge(ids[0]); ch["status"] != "PAID" || !strings.HasPrefix(fmt.Sprint(ch["paid_at"]), "2026-11-21") || ch["paid_amount"] != "1500.00" {
				t.Errorf("the payment: %v", ch)
			}
			if ch := charge(ids[1]); ch["registration"] != "rejected" || ch["registration_reason"] != "48 CEP inválido" || ch["status"] != "PENDING" {
				t.Errorf("the refusal: %v", ch)
			}
			if ch := charge(ids[2]); ch["status"] != "CANCELLED" {
				t.Errorf("the write-off: %v", ch)
			}
		})
	}
}

// must is v, for a sample that exists.
func must[T any](v T, ok bool) T {
	if !ok {
		panic("no such sample")
	}
	return v
}

// TestBancoDoBrasilConvenioKept: Banco do Brasil's our-numbers are made
// of the convênio, so an agreement with open boletos keeps it (409,
// nothing changed); the wallet variation is BB's alone.
func TestBancoDoBrasilConvenioKept(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	bb, _ := bank.SampleOf("001")
	agreeWith(t, ds, "provider_b", bb)
	id := orderWith(t, h, `"provider_a"`, `"provider_b"`)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	db, release := acquire(t, ds)
	defer release()
	unit, _ := db.UnitByToken(context.Background(), fx.tokens["unitA"])
	in := settings.AgreementInput{Provider: "provider_b", Agency: bb.Agency + "-" + bb.AgencyDV, Account: bb.Account + "-" + bb.AccountDV,
		Wallet: bb.Wallet, Variation: bb.Variation, Code: "7654321"}
	if _, err := settings.SetAgreement(context.Background(), db, unit, in); !errors.Is(err, settings.ErrCodeChange) {
		t.Fatalf("a new convênio under an open boleto: %v", err)
	}
	in.Code = bb.Code
	in.Wallet = "11"
	if a, err := settings.SetAgreement(context.Background(), db, unit, in); err != nil || a.Code != bb.Code || a.Wallet != "11" {
		t.Fatalf("the same convênio, another wallet: %+v %v", a, err)
	}
	itau := bank.Samples()["provider_a"]
	if a, err := settings.SetAgreement(context.Background(), db, unit, settings.AgreementInput{Provider: "provider_a", Agency: itau.Agency,
		Account: itau.Account + "-" + itau.AccountDV, Wallet: itau.Wallet, Variation: "019"}); err != nil || a.Variation != "" {
		t.Fatalf("Itaú with a variation: %+v %v", a, err)
	}
}

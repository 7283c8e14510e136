package jobs

import (
	"archive/zip"
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/store"
)

// TestAccountantPackageMailed: on day 5 a unit with an accountant's
// address has the package of the month before queued to it, once (a day
// run twice, or the next day, queues nothing more); a unit without one
// gets none; other days queue nothing.
func TestAccountantPackageMailed(t *testing.T) {
	w := newWorld(t, time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	ctx := context.Background()
	if _, err := w.db.InsertEntry(ctx, w.unit.ID, store.EntryFields{Type: "out", Description: "Aluguel", Value: store.NewMoney(decimal.NewFromInt(2500)),
		DueDate: "2026-11-05", Active: true}, nil, ""); err != nil {
		t.Fatal(err)
	}
	other, _ := w.db.CreateUnit(ctx, store.UnitInput{Name: "B"})
	if _, err := w.db.SetUnitProfile(ctx, w.unit.Token, func(p *store.UnitProfile) error { p.AccountantEmail = "contador@escritorio.com.br"; return nil }); err != nil {
		t.Fatal(err)
	}
	run := func(day string) []Result {
		t.Helper()
		d, _ := store.ParseDateISO(day)
		out, err := w.runner.RunDay(ctx, w.db, d)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, r := range run("2026-12-04") {
		if r.Job == AccountantJob {
			t.Error("the package job ran on day 4")
		}
	}
	run("2026-12-05")
	run("2026-12-05")
	mails, err := w.db.Outbox(ctx, store.EveryUnit, 20)
	if err != nil {
		t.Fatal(err)
	}
	var sent []store.Mail
	for _, m := range mails {
		if m.Kind == AccountantJob {
			sent = append(sent, m)
		}
	}
	if len(sent) != 1 || sent[0].To != "contador@escritorio.com.br" || sent[0].Subject != "Pacote do contador · A · 2026-11" ||
		!strings.Contains(sent[0].Body, "Lançamentos com vencimento no mês (lancamentos-2026-11.xlsx): 1; receitas R$ 0,00, despesas R$ 2.500,00") {
		t.Fatalf("queued %+v", sent)
	}
	if len(sent[0].Attachments) != 1 || sent[0].Attachments[0].Name != "contador-2026-11.zip" || sent[0].Attachments[0].ContentType != "application/zip" {
		t.Fatalf("attachments %+v", sent[0].Attachments)
	}
	due, err := w.db.DueMail(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range due {
		if m.Token != sent[0].Token {
			continue
		}
		data := m.Attachments[0].Data
		if _, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Errorf("the attachment is no ZIP: %v", err)
		}
	}
	if other.Token == "" {
		t.Fatal("no second unit")
	}
}

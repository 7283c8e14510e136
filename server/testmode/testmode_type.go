package testmode

import (
	"context"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/server/web"
	"fincom/store"
)

// Mode serves /_test (serve --test-mode, demo).
type Mode struct {
	Mux      *web.Mux
	Domains  *store.Domains
	Billing  *billing.Service
	Invoices *invoicing.Service
	Keyring  *certs.Keyring
	RunDay   DayRunner
	// Wake tries the domain's held notes now (the transmissions loop's
	// Wake): a change of the authorities' mode calls it.
	Wake     func(ctx context.Context, db *store.DB) error
	faults   *faults
	journal  *journal
	WaitMail func()                      // the sign-in e-mails being queued
	Unseal   func(store.Mail) store.Mail // a queued e-mail as its reader sees it
}

// New is test mode over m's services; seed makes its faults reproducible.
func New(m Mode, seed uint64) *Mode {
	m.faults = newFaults(seed)
	m.journal = &journal{entries: map[string][]journalEntry{}}
	return &m
}

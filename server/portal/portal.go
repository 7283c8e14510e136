package portal

import (
	"log/slog"
	"sync"

	"fincom/render"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/server/sales"
	"fincom/server/web"
	"fincom/store"
)

// Portal serves the staff portal's pages (/portal/).
type Portal struct {
	Domains   *store.Domains
	System    *store.System
	Log       *slog.Logger
	Render    *render.Renderer
	Links     render.Links
	Billing   *billing.Service
	Invoices  *invoicing.Service
	PublicURL string
	LinkKeys  *certs.Keyring
	TestMode  bool
	signIn    signInLimits
	mailing   sync.WaitGroup    // sign-in e-mails being queued (queueLoginLink)
	queuing   chan struct{}     // their slots, maxQueuing
	APIRoutes []web.Route       // a refusal is shown with the API route's own text
	Uploads   *web.UploadBudget // the memory uploads hold at once, the API's too
}

// sales makes the portal's orders through its billing and invoicing.
func (s *Portal) sales() *sales.Service {
	return &sales.Service{Billing: s.Billing, Invoices: s.Invoices}
}

// New is the portal of p's services, with its own sign-in limits.
func New(p *Portal) *Portal {
	p.signIn = newSignInLimits()
	p.queuing = make(chan struct{}, maxQueuing)
	return p
}

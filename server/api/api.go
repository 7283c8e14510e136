package api

import (
	"log/slog"

	"fincom/render"
	"fincom/server/billing"
	"fincom/server/invoicing"
	"fincom/server/sales"
	"fincom/server/web"
	"fincom/store"
)

// API serves the spec's routes (routes.go); each resource's handlers are
// methods of a type of their own that embeds it.
type API struct {
	Domains             *store.Domains
	Log                 *slog.Logger
	Render              *render.Renderer
	Links               render.Links
	Billing             *billing.Service
	Invoices            *invoicing.Service
	Limiter             *web.RateLimiter // the public routes', per client address
	TestMode            bool
	WebhookAllowPrivate bool
}

// Sales makes orders through the API's billing and invoicing.
func (a *API) Sales() *sales.Service { return &sales.Service{Billing: a.Billing, Invoices: a.Invoices} }

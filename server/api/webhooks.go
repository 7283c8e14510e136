package api

import (
	"errors"
	"net/http"
	"strings"

	"fincom/server/web"
	"fincom/server/webhook"
	"fincom/store"
)

// webhooks handles the routes of webhooks (routes.go).
type webhooks struct{ *API }

var (
	errWebhookURL      = web.NewError(http.StatusBadRequest, "Invalid url. Use an http or https address.")
	errWebhookPrivate  = web.NewError(http.StatusBadRequest, "Invalid url. Webhooks are posted to public addresses only, not to loopback, private, link-local or reserved ones.")
	errWebhookEvents   = web.NewError(http.StatusBadRequest, "Unknown event. See the README for the event names.")
	errWebhookNotFound = web.NewError(http.StatusNotFound, "Webhook not found or not updated.")
)

type webhookRequest struct {
	URL    string   `json:"url" required:"true" doc:"The http or https address deliveries are posted to (outside test mode, a public one)."`
	Secret string   `json:"secret" doc:"The signing secret (default: one made and answered once)."`
	Events []string `json:"events" required:"true" pattern:"^(\\*|[a-z_]+\\.(\\*|[a-z_]+))$" doc:"The events delivered: names such as charge.paid, a kind's wildcard (charge.*) or * for all."`
}

func (q *webhookRequest) Validate() error {
	for _, e := range q.Events {
		if e != "*" && !store.WebhookEvents[e] && !(strings.HasSuffix(e, ".*") && validPrefix(strings.TrimSuffix(e, "*"))) {
			return errWebhookEvents
		}
	}
	if len(q.Secret) > 200 {
		return web.ErrTooLong
	}
	return nil
}

func validPrefix(p string) bool {
	for e := range store.WebhookEvents {
		if strings.HasPrefix(e, p) {
			return true
		}
	}
	return false
}

type webhookCreated struct {
	Token  string `json:"token" format:"uuid" doc:"The webhook's token."`
	Secret string `json:"secret" doc:"The secret its deliveries are signed with (X-Fincom-Signature); answered once, keep it."`
}

// insertWebhook (a fincom route) registers an endpoint for events of the
// unit: `url`, `events` (names, "contract.*" or "*"), optional `secret`
// (one is made when absent; it is answered once). Outside test mode the
// url must be public: a loopback, private, link-local or reserved address
// is refused here and, for a name, when a delivery connects
// (TestWebhookTargets).
func (s webhooks) insertWebhook(r *web.Request, q *webhookRequest) (any, error) {
	switch err := webhook.CheckURL(q.URL, s.WebhookAllowPrivate); {
	case errors.Is(err, webhook.ErrNotPublic):
		return nil, errWebhookPrivate
	case err != nil:
		return nil, errWebhookURL
	}
	token, secret, err := r.DB.InsertWebhook(r.Ctx, r.Unit.ID, q.URL, q.Secret, q.Events)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Webhook registered.", Data: webhookCreated{Token: token, Secret: secret}}, nil
}

func (s webhooks) listWebhooks(r *web.Request) (any, error) {
	return r.DB.Webhooks(r.Ctx, r.Unit.ID)
}

// listWebhookDeliveries answers the delivery log, newest first: event id,
// type, status (pending, sent, failed), attempts, the last answer or error,
// and the payload sent.
func (s webhooks) listWebhookDeliveries(r *web.Request, q *web.PageRequest) (any, error) {
	pg := q.StorePage()
	list, total, err := r.DB.Deliveries(r.Ctx, r.Unit.ID, pg)
	return web.PageOf(list, total, pg, err)
}

type listAuditRequest struct {
	Search string `json:"search" max:"short" doc:"Keeps the changes whose actor, route or record holds this text, case and accents aside."`
	web.PageRequest
}

// listAudit (a fincom route) answers the unit's latest changes: when,
// which access token (its id and hint), route and record. Another unit's
// changes are not shown (TestListingsShowNoSiblingUnit).
func (s webhooks) listAudit(r *web.Request, q *listAuditRequest) (any, error) {
	pg := q.StorePage()
	list, total, err := r.DB.AuditLog(r.Ctx, r.Unit.ID, strings.TrimSpace(q.Search), pg)
	return web.PageOf(list, total, pg, err)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docInsertWebhook = "Registers an endpoint for the unit's events: `url` (http or https; outside test mode a public " +
		"address: loopback, private, link-local and reserved ones are refused, here and when delivering), " +
		"`events` (names such as `charge.paid`, `charge.*` or `*`), optional `secret` (one is made when " +
		"absent; answered once). Events: `sales_order.created`, `charge.created`, `charge.paid`, " +
		"`charge.reopened` (a payment undone with the statement line that paid it), `charge.reminder_sent` (a reminder e-mailed to the " +
		"customer, by the unit's schedule or a person: `step`, days from the due date, negative before it, null for a resend; `trigger` " +
		"`schedule` or `resend`; `day`; `amount_due` that day with its `fine` and `interest`; `channel` `email`: an integrator may send " +
		"the same by WhatsApp or SMS), `charge.overdue`, `charge.cancelled`, `charge.refused`, `charge.refunded`, `charge.refund_refused`, `invoice.issued`, `invoice.rejected`, `invoice.denied`, `invoice.cancelled`, " +
		"`contract.created`, `contract.updated`, `inventory.low_stock`. Each delivery is a POST of `{id, " +
		"type, created_at, unit_token, data}` with `X-Fincom-Event`, `X-Fincom-Delivery` and " +
		"`X-Fincom-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">`; a failure is tried again " +
		"after 30 s, 1, 2, 4 … minutes (at most 6 h), 10 times."
	docListWebhooks     = "The unit's webhooks, without their secrets."
	docSetWebhookActive = "Enables or disables a webhook (`id_token`); idempotent."
	docListDeliveries   = "The deliveries of the unit's webhooks, newest first: event, type, status (`pending`, `sent`, " +
		"`failed`), attempts, the endpoint's last status, the kind of the last failure (never the " +
		"connection's own error) and the payload."
	docListAudit = "The unit's changes, newest first: when, which access token (its id and hint, never the " +
		"token), which route and record; `search` keeps those whose actor, route or record holds it, case and accents aside."
)

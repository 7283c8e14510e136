package server

import (
	"errors"
	"net/http"
	"strings"

	"fincom/server/webhook"
	"fincom/store"
)

var (
	errWebhookURL      = newError(http.StatusBadRequest, textWebhookURL)
	errWebhookPrivate  = newError(http.StatusBadRequest, textWebhookPrivate)
	errWebhookEvents   = newError(http.StatusBadRequest, textWebhookEvents)
	errWebhookNotFound = newError(http.StatusNotFound, textWebhookNotFound)
)

type webhookRequest struct {
	URL    string   `json:"url" required:"true"`
	Secret string   `json:"secret"`
	Events []string `json:"events" required:"true" pattern:"^(\\*|[a-z_]+\\.(\\*|[a-z_]+))$"`
}

func (q *webhookRequest) validate() error {
	for _, e := range q.Events {
		if e != "*" && !store.WebhookEvents[e] && !(strings.HasSuffix(e, ".*") && validPrefix(strings.TrimSuffix(e, "*"))) {
			return errWebhookEvents
		}
	}
	if len(q.Secret) > 200 {
		return errTooLong
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
	Token  string `json:"token" format:"uuid"`
	Secret string `json:"secret"`
}

// insertWebhook (a fincom route) registers an endpoint for events of the
// unit: `url`, `events` (names, "contract.*" or "*"), optional `secret`
// (one is made when absent; it is answered once). Outside test mode the
// url must be public: a loopback, private, link-local or reserved address
// is refused here and, for a name, when a delivery connects
// (TestWebhookTargets).
func (s *Server) insertWebhook(r *request, q *webhookRequest) (any, error) {
	switch err := webhook.CheckURL(q.URL, s.cfg.WebhookAllowPrivate || s.cfg.TestMode); {
	case errors.Is(err, webhook.ErrNotPublic):
		return nil, errWebhookPrivate
	case err != nil:
		return nil, errWebhookURL
	}
	token, secret, err := r.db.InsertWebhook(r.ctx, r.unit.ID, q.URL, q.Secret, q.Events)
	if err != nil {
		return nil, err
	}
	return withMessage{Message: "Webhook registered.", Data: webhookCreated{Token: token, Secret: secret}}, nil
}

func (s *Server) listWebhooks(r *request) (any, error) {
	return r.db.Webhooks(r.ctx, r.unit.ID)
}

// listWebhookDeliveries answers the delivery log, newest first: event id,
// type, status (pending, sent, failed), attempts, the last answer or error,
// and the payload sent.
func (s *Server) listWebhookDeliveries(r *request) (any, error) {
	return r.db.Deliveries(r.ctx, r.unit.ID, 200)
}

// listAudit (a fincom route) answers the unit's latest changes: when,
// which access token (its id and hint), route and record. Another unit's
// changes are not shown (TestListingsShowNoSiblingUnit).
func (s *Server) listAudit(r *request) (any, error) {
	return r.db.AuditLog(r.ctx, r.unit.ID, 500)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docInsertWebhook = "Registers an endpoint for the unit's events: `url` (http or https; outside test mode a public " +
		"address: loopback, private, link-local and reserved ones are refused, here and when delivering), " +
		"`events` (names such as `charge.paid`, `charge.*` or `*`), optional `secret` (one is made when " +
		"absent; answered once). Events: `sales_order.created`, `charge.created`, `charge.paid`, " +
		"`charge.overdue`, `charge.cancelled`, `charge.refused`, `invoice.issued`, `invoice.cancelled`, " +
		"`contract.created`, `contract.updated`, `inventory.low_stock`. Each delivery is a POST of `{id, " +
		"type, created_at, unit_token, data}` with `X-Fincom-Event`, `X-Fincom-Delivery` and " +
		"`X-Fincom-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">`; a failure is tried again " +
		"after 30 s, 1, 2, 4 … minutes (at most 6 h), 10 times."
	docListWebhooks     = "The unit's webhooks, without their secrets."
	docSetWebhookActive = "Enables or disables a webhook (`id_token`); idempotent."
	docListDeliveries   = "The latest deliveries of the unit's webhooks, newest first: event, type, status (`pending`, `sent`, " +
		"`failed`), attempts, the endpoint's last status, the kind of the last failure (never the " +
		"connection's own error) and the payload."
	docListAudit = "The unit's latest changes, newest first: when, which access token (its id and hint, never the " +
		"token), which route and record."
)

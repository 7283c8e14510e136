package api

import (
	"net/http"
	"strings"
	"time"

	"fincom/server/web"
	"fincom/store"
)

// crm handles the routes of CRM records (routes.go).
type crm struct{ *API }

var (
	errCRMContact      = web.NewError(http.StatusForbidden, "id_contact not found, inactive, or not linked to unit_token")
	errCRMRecordDate   = web.NewError(http.StatusBadRequest, "Invalid record_date. Use YYYY-MM-DD.")
	errCRMNextContact  = web.NewError(http.StatusBadRequest, "Invalid next_contact_datetime. Use ISO 8601, e.g. 2026-12-01T14:30:00-03:00.")
	errCRMNotFound     = web.NewError(http.StatusNotFound, "CRM record not found or not updated.")
	errCRMNoFields     = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdateDot)
	errCRMInvalidRange = web.NewError(http.StatusBadRequest, web.TextInvalidRangeDate)
)

// crmRequest is the body of /insert_crm and /update_crm (spec, CRM).
type crmRequest struct {
	IDToken             string  `json:"id_token" alias:"token" doc:"The record's token (an update's)."`
	IDContact           *string `json:"id_contact" alias:"id_token_contact" max:"short"`
	RecordDate          *string `json:"record_date" format:"date" doc:"The day of the contact with the customer; blank: none."`
	CommunicationType   *string `json:"communication_type" max:"short" doc:"How it happened (Telefone, E-mail, Visita)."`
	LifecyclePhase      *string `json:"lifecycle_phase" max:"short" doc:"The customer's phase (lead, oportunidade, cliente)."`
	LeadStatus          *string `json:"lead_status" max:"short" doc:"The lead's status, in the firm's words."`
	Description         *string `json:"description" text:"multiline" max:"long" doc:"What was said (several lines)."`
	ContactSuccess      *bool   `json:"contact_success" doc:"true: the customer was reached."`
	NextContactDatetime *string `json:"next_contact_datetime" doc:"When to contact again, ISO 8601 (without a zone, São Paulo's)."`
	NextContactReason   *string `json:"next_contact_reason" text:"multiline" max:"long" doc:"Why to contact again (several lines)."`
}

// nextContactLayouts are the date-time forms accepted for
// next_contact_datetime: ISO 8601 preferred (spec), the common others too.
var nextContactLayouts = []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", time.DateOnly}

func (q *crmRequest) Apply(f *store.CRMFields) error {
	for _, t := range []struct {
		dst, src *string
	}{
		{&f.ContactToken, q.IDContact}, {&f.CommunicationType, q.CommunicationType},
		{&f.LifecyclePhase, q.LifecyclePhase}, {&f.LeadStatus, q.LeadStatus},
		{&f.Description, q.Description}, {&f.NextContactReason, q.NextContactReason},
	} {
		web.SetText(t.dst, t.src)
	}
	if err := isoDate(&f.RecordDate, q.RecordDate, errCRMRecordDate); err != nil {
		return err
	}
	if q.ContactSuccess != nil {
		f.ContactSuccess = *q.ContactSuccess
	}
	if q.NextContactDatetime != nil {
		f.NextContactDatetime = ""
		if v := strings.TrimSpace(*q.NextContactDatetime); v != "" {
			var t time.Time
			var err error
			for _, l := range nextContactLayouts {
				// Times without a zone are São Paulo's.
				if t, err = time.ParseInLocation(l, v, SaoPaulo); err == nil {
					break
				}
			}
			if err != nil {
				return errCRMNextContact
			}
			f.NextContactDatetime = t.Format(time.RFC3339)
		}
	}
	return nil
}

var SaoPaulo = func() *time.Location {
	l, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		return time.FixedZone("-03", -3*3600)
	}
	return l
}()

// insertCRM creates an active CRM record (spec, /insert_crm): record_date
// defaults to today, contact_success to false, empty texts become null.
func (s crm) insertCRM(r *web.Request, q *crmRequest) (any, error) {
	f := store.CRMFields{RecordDate: store.Today(r.DB.Now()).ISO()}
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	if f.RecordDate == "" {
		f.RecordDate = store.Today(r.DB.Now()).ISO()
	}
	token, err := r.DB.InsertCRM(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "CRM record created successfully.", Token: token}, nil
}

// updateCRM changes the sent fields of a record (a fincom route).
func (s crm) updateCRM(r *web.Request, q *crmRequest) (any, error) {
	if web.Sent(q.IDContact, q.RecordDate, q.CommunicationType, q.LifecyclePhase, q.LeadStatus, q.Description, q.ContactSuccess,
		q.NextContactDatetime, q.NextContactReason) == 0 {
		return nil, errCRMNoFields
	}
	apply := func(f *store.CRMFields) error {
		if err := q.Apply(f); err != nil {
			return err
		}
		if f.RecordDate == "" {
			return errCRMRecordDate
		}
		return nil
	}
	if err := r.DB.UpdateCRM(r.Ctx, r.Unit.ID, q.IDToken, apply); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "CRM record updated successfully.", Token: q.IDToken}, nil
}

type listCRMRequest struct {
	IDContact string `json:"id_contact" alias:"id_token_contact"`
	DateFrom  string `json:"date_from" format:"date" doc:"Records from this day."`
	DateTo    string `json:"date_to" format:"date" doc:"Records up to this day."`
	Active    *bool  `json:"active" doc:"true or false: only records in that state; absent: all."`
	web.PageRequest
}

func (q *listCRMRequest) Validate() error {
	for _, d := range []*string{&q.DateFrom, &q.DateTo} {
		if *d != "" {
			v, err := store.ParseDateISO(*d)
			if err != nil {
				return errCRMInvalidRange
			}
			*d = v.ISO()
		}
	}
	return nil
}

// listCRM (a fincom route) answers the unit's records, newest first.
func (s crm) listCRM(r *web.Request, q *listCRMRequest) (any, error) {
	pg := q.StorePage()
	list, total, err := r.DB.CRMRecords(r.Ctx, r.Unit.ID, store.CRMFilter{ContactToken: q.IDContact, From: q.DateFrom, To: q.DateTo, Active: q.Active}, pg)
	return web.PageOf(list, total, pg, err)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docInsertCRM = "Creates a CRM record (spec): optional `id_contact` (an active contact of the unit, else 403 " +
		"`id_contact not found, inactive, or not linked to unit_token`), `record_date` (default today), " +
		"`communication_type`, `lifecycle_phase`, `lead_status`, `description`, `contact_success` (default " +
		"false), `next_contact_datetime` (ISO 8601; without a zone, São Paulo's), `next_contact_reason`; " +
		"empty texts are stored as null."
	docUpdateCRM    = "Changes the sent fields of a CRM record (`id_token`)."
	docListCRM      = "The unit's CRM records, newest first, optionally by `id_contact`, `date_from`, `date_to`, `active`."
	docSetCRMActive = "Enables or disables a CRM record (`id_token`); idempotent."
)

package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"fincom/server/brdoc"
	"fincom/server/docread"
	"fincom/server/ledger"
	"fincom/server/web"
	"fincom/store"
)

// entries handles the routes of expenses and income (routes.go).
type entries struct{ *API }

var (
	errExpenseNotFound      = web.NewError(http.StatusNotFound, "Expense not found or not updated.")
	errIncomeNotFound       = web.NewError(http.StatusNotFound, "Income not found or not updated.")
	errInvalidDueDate       = web.NewError(http.StatusBadRequest, "Invalid due_date. Use YYYY-MM-DD.")
	errInvalidCompetence    = web.NewError(http.StatusBadRequest, "Invalid competence_date. Use YYYY-MM-DD.")
	errInvalidUntil         = web.NewError(http.StatusBadRequest, "Invalid recurrence_until. Use YYYY-MM-DD.")
	errPaidNeedsAccount     = web.NewError(http.StatusBadRequest, "A paid entry needs id_token_bank_account.")
	errInvalidBarcode       = web.NewError(http.StatusBadRequest, "Invalid barcode. Send a boleto's linha digitável or bar code with valid check digits.")
	errInvalidAccessKey     = web.NewError(http.StatusBadRequest, "Invalid access_key. Send the 44 digits with a valid check digit.")
	errEntryNoFieldsUpdate  = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdate)
	errScreeningUnavailable = web.NewError(http.StatusBadRequest, "Screening not found or already used.")
	// fincom's routes of groups and recurrences.
	errEntryGroupNotFound      = web.NewError(http.StatusNotFound, "Entry not found, or in no group of instalments.")
	errEntryRecurrenceNotFound = web.NewError(http.StatusNotFound, "Entry not found, or repeating nothing.")
)

// entryKind is what differs between the expense and the income routes.
type entryKind struct {
	typ  string // out or in
	noun string
}

var (
	expense = entryKind{"out", "Expense"}
	income  = entryKind{"in", "Income"}
)

// entryRequest is the body (or multipart metadata) of the insert and update
// routes of expenses and income, named as /transactions returns an entry.
// Related records go by token.
type entryRequest struct {
	IDToken         string       `json:"id_token" alias:"token" doc:"The entry's token (an update's)."`
	Description     *string      `json:"description" max:"short" doc:"What the entry is (required to insert)."`
	Value           *store.Money `json:"value" doc:"The amount, a positive decimal rounded to cents (required to insert)."`
	DueDate         *string      `json:"due_date" format:"date" blank:"refused" doc:"The day it is due (required to insert, unless a screening gives it)."`
	PayDay          *string      `json:"pay_day" pattern:"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$" doc:"The day it was paid: set, the entry is paid; blank, open again."`
	CompetenceDate  *string      `json:"competence_date" pattern:"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$" doc:"The day it belongs to in the DRE's accrual basis (default: due_date)."`
	Category        *string      `json:"id_token_category" alias:"category_token" max:"short"`
	Contact         *string      `json:"id_token_contact" alias:"id_contact" max:"short"`
	BankAccount     *string      `json:"id_token_bank_account" alias:"id_bank_account" max:"short"`
	Project         *string      `json:"id_token_project" alias:"id_project" max:"short"`
	PaymentType     *string      `json:"payment_type" alias:"id_token_payment_method" max:"short"`
	UserToken       *string      `json:"user_token" max:"short" doc:"The user recorded as having made the entry."`
	Barcode         *string      `json:"barcode" pattern:"^\\s*([0-9][0-9 .-]*)?$" doc:"A boleto's linha digitável or bar code (its check digits verified)."`
	AccessKey       *string      `json:"access_key" pattern:"^\\s*(([0-9]{4} ?){10}[0-9]{4})?\\s*$" doc:"The 44-digit access key of the NF-e the entry is of (its check digit verified)."`
	KeyMethodCredor *string      `json:"key_method_credor" max:"short" doc:"The creditor's PIX key or payment details."`
	Note            *string      `json:"note" text:"multiline" max:"long" doc:"Notes (several lines)."`
	Private         *bool        `json:"private" doc:"Marks the entry private; kept and listed as sent."`
	Active          *bool        `json:"active" doc:"false cancels the entry (an update's), true restores it."`
	Screening       string       `json:"id_token_screening" alias:"screening_token"`
	// fincom's, on insert only: the entry split in instalments, or
	// repeating.
	Installments          *int     `json:"installments" doc:"fincom: split the entry in 2 to 48 instalments (insert only): each its own entry described \"description i/n\", the value split to the cent (the remainder on the last), due monthly from due_date or on installment_dates, all sharing the competence and a group; token is the first's."`
	InstallmentDates      []string `json:"installment_dates" doc:"fincom: the instalments' due dates (YYYY-MM-DD), one each, in order (default: monthly from due_date)."`
	RecurrenceEveryMonths *int     `json:"recurrence_every_months" doc:"fincom: the entry repeats every 1 to 12 months (insert only), recurrence_times in all or until recurrence_until; the daily job makes each occurrence recurrence_lead_days before it is due, once."`
	RecurrenceTimes       *int     `json:"recurrence_times" doc:"fincom: how many occurrences in all, the first included (2 to 120)."`
	RecurrenceUntil       *string  `json:"recurrence_until" format:"date" doc:"fincom: the last due date a recurrence reaches (after due_date)."`
	RecurrenceLeadDays    *int     `json:"recurrence_lead_days" doc:"fincom: how many days before it is due each occurrence is made (0 to 60; default 10)."`
}

// The shapes of a boleto's line or bar code (digits with the dots,
// spaces and hyphens it is printed with) and of an access key (groups of
// four), from their tags; their check digits are verified beyond them.
var (
	barcodeShape   = web.TagPattern(entryRequest{}, "Barcode")
	accessKeyShape = web.TagPattern(entryRequest{}, "AccessKey")
)

func (q *entryRequest) fieldCount() int {
	return web.Sent(q.Description, q.Value, q.DueDate, q.PayDay, q.CompetenceDate, q.Category, q.Contact, q.BankAccount,
		q.Project, q.PaymentType, q.UserToken, q.Barcode, q.AccessKey, q.KeyMethodCredor, q.Note, q.Private, q.Active)
}

// isoDate normalizes an optional YYYY-MM-DD field: empty clears it.
func isoDate(dst *string, src *string, bad *web.Error) error {
	if src == nil {
		return nil
	}
	v := strings.TrimSpace(*src)
	if v == "" {
		*dst = ""
		return nil
	}
	d, err := store.ParseDateISO(v)
	if err != nil {
		return bad
	}
	*dst = d.ISO()
	return nil
}

// Apply copies the sent fields onto f and validates the result.
func (q *entryRequest) Apply(f *store.EntryFields) error {
	for _, t := range []struct {
		dst, src *string
	}{
		{&f.Description, q.Description}, {&f.Note, q.Note},
		{&f.KeyMethodCredor, q.KeyMethodCredor},
		{&f.CategoryToken, q.Category}, {&f.ContactToken, q.Contact},
		{&f.BankAccountToken, q.BankAccount}, {&f.ProjectToken, q.Project},
		{&f.PaymentMethodToken, q.PaymentType}, {&f.UserToken, q.UserToken},
	} {
		web.SetText(t.dst, t.src)
	}
	if err := isoDate(&f.DueDate, q.DueDate, errInvalidDueDate); err != nil {
		return err
	}
	if err := isoDate(&f.PayDay, q.PayDay, web.ErrInvalidPayDay); err != nil {
		return err
	}
	// An insert's recurrence end, checked on every route that takes the
	// body (an update ignores it).
	var until string
	if err := isoDate(&until, q.RecurrenceUntil, errInvalidUntil); err != nil {
		return err
	}
	for _, d := range q.InstallmentDates {
		if _, err := store.ParseDateISO(d); err != nil {
			return ledger.ErrDates
		}
	}
	if err := isoDate(&f.CompetenceDate, q.CompetenceDate, errInvalidCompetence); err != nil {
		return err
	}
	if q.Value != nil {
		f.Value = store.NewMoney(q.Value.Round(2))
	}
	if q.Barcode != nil {
		if !barcodeShape.MatchString(*q.Barcode) {
			return errInvalidBarcode
		}
		f.Barcode = brdoc.Digits(*q.Barcode)
	}
	if q.AccessKey != nil {
		if !accessKeyShape.MatchString(*q.AccessKey) {
			return errInvalidAccessKey
		}
		f.AccessKey = brdoc.Digits(*q.AccessKey)
	}
	if q.Private != nil {
		f.Private = *q.Private
	}
	if q.Active != nil {
		f.Active = *q.Active
	}
	switch {
	case f.Description == "" || f.DueDate == "":
		return web.ErrMissing
	case !f.Value.IsPositive():
		return web.ErrInvalidValue
	case f.PayDay != "" && f.BankAccountToken == "":
		return errPaidNeedsAccount
	case f.AccessKey != "" && !brdoc.ValidAccessKey(f.AccessKey):
		return errInvalidAccessKey
	}
	if f.Barcode != "" && !brdoc.ValidBoleto(f.Barcode) {
		return errInvalidBarcode
	}
	return nil
}

// prefill takes what the request leaves out from the data read from a
// screened document.
func (q *entryRequest) prefill(sc store.Screening) {
	var r docread.Result
	if json.Unmarshal(sc.Extracted, &r) != nil {
		return
	}
	take := func(dst **string, name string) {
		if *dst == nil {
			if v, ok := r.Fields[name]; ok && v.Value != "" {
				s := v.Value
				*dst = &s
			}
		}
	}
	take(&q.Description, "description")
	take(&q.DueDate, "due_date")
	take(&q.Barcode, "barcode")
	take(&q.AccessKey, "access_key")
	take(&q.CompetenceDate, "competence_date")
	if q.Value == nil {
		if v, ok := r.Fields["value"]; ok {
			if m, err := store.ParseMoney(v.Value); err == nil {
				q.Value = &m
			}
		}
	}
}

// insertEntry creates an expense or income with its attached files
// (multipart `files`). A paid entry (pay_day set) moves its bank account's
// balance. With id_token_screening, the screened document's file is
// attached and its data fills the fields the request leaves out.
func (s entries) insertEntry(k entryKind) web.Action {
	return web.Handle(func(r *web.Request, q *entryRequest) (any, error) {
		if q.Screening != "" {
			sc, err := r.DB.Screening(r.Ctx, r.Unit.ID, q.Screening)
			if err != nil || sc.Status != "pending" {
				return nil, errScreeningUnavailable
			}
			q.prefill(sc)
		}
		f := store.EntryFields{Type: k.typ, Active: true}
		if err := q.Apply(&f); err != nil {
			return nil, err
		}
		if f.CompetenceDate == "" {
			f.CompetenceDate = f.DueDate
		}
		files, err := r.ReadFiles()
		if err != nil {
			return nil, err
		}
		var token string
		switch {
		case (q.Installments != nil || q.RecurrenceEveryMonths != nil) && q.Screening != "":
			return nil, ledger.ErrWithScreening
		case q.Installments != nil && q.RecurrenceEveryMonths != nil:
			return nil, ledger.ErrSplitOnce
		case q.Installments != nil:
			token, _, err = ledger.CreateInstalments(r.Ctx, r.DB, r.Unit.ID, "", f, *q.Installments, q.InstallmentDates, files)
		case q.RecurrenceEveryMonths != nil:
			rec := store.Recurrence{EveryMonths: *q.RecurrenceEveryMonths, LeadDays: ledger.DefaultLead}
			if q.RecurrenceTimes != nil {
				rec.Times = max(*q.RecurrenceTimes, -1)
				if rec.Times == 0 {
					rec.Times = -1 // sent as 0: out of bounds, not absent
				}
			}
			if q.RecurrenceUntil != nil {
				rec.Until = *q.RecurrenceUntil
			}
			if q.RecurrenceLeadDays != nil {
				rec.LeadDays = *q.RecurrenceLeadDays
			}
			token, _, err = ledger.CreateRecurring(r.Ctx, r.DB, r.Unit.ID, "", f, rec, files)
		default:
			token, err = r.DB.InsertEntry(r.Ctx, r.Unit.ID, f, files, q.Screening)
		}
		if err != nil {
			return nil, err
		}
		return web.TokenAnswer{Message: k.noun + " created successfully.", Token: token}, nil
	})
}

// updateEntry changes the sent fields of an expense or income and attaches
// the sent files. `active: false` cancels the entry; `pay_day: ""` reopens
// it.
func (s entries) updateEntry(k entryKind) web.Action {
	return web.Handle(func(r *web.Request, q *entryRequest) (any, error) {
		if q.fieldCount() == 0 && len(r.Body.Files) == 0 {
			return nil, errEntryNoFieldsUpdate
		}
		files, err := r.ReadFiles()
		if err != nil {
			return nil, err
		}
		if err := r.DB.UpdateEntry(r.Ctx, r.Unit.ID, k.typ, q.IDToken, q.Apply, files); err != nil {
			return nil, err
		}
		return web.TokenAnswer{Message: k.noun + " updated successfully.", Token: q.IDToken}, nil
	})
}

// entryTokenRequest names an entry of the unit.
type entryTokenRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true" doc:"The entry's token (any instalment's, or any occurrence's)."`
}

// cancelEntryGroup cancels the open instalments of an entry's group (a
// fincom route); the paid ones stay.
func (s entries) cancelEntryGroup(r *web.Request, q *entryTokenRequest) (any, error) {
	group, n, err := r.DB.CancelEntryGroup(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: fmt.Sprintf("%d open instalments cancelled.", n), Token: group}, nil
}

// stopEntryRecurrence stops the recurrence an entry belongs to (a fincom
// route); the occurrences made stay.
func (s entries) stopEntryRecurrence(r *web.Request, q *entryTokenRequest) (any, error) {
	if err := r.DB.StopRecurrence(r.Ctx, r.Unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Recurrence stopped.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docInsertEntry = "Inserts an expense (`/insert_expense`) or an income (`/insert_income`): JSON, or multipart with the " +
		"JSON part `metadata` and the attachments as `files` parts. Required: `description`, `value` (> 0, " +
		"exact, rounded to cents) and `due_date` (`YYYY-MM-DD`). Optional: `pay_day` (set = paid; needs " +
		"`id_token_bank_account`), `competence_date` (default: the due date), `id_token_category` (of the " +
		"entry's type), `id_token_contact`, `id_token_bank_account`, `id_token_project`, `payment_type` (a " +
		"`/list_payments_method` token), `user_token` (who records it), `barcode` (a boleto's line or bar " +
		"code, check digits verified), `access_key` (an NF-e key, check digit verified), `key_method_credor` " +
		"(the creditor's payment key), `note`, `private`, and `id_token_screening`: a pending screening " +
		"whose document fills the fields left out and becomes the first attachment (400 `Screening not found " +
		"or already used.` once used). Related records must be active records of the unit (403 `Invalid " +
		"data`). A paid entry moves its bank account's balance.\n\nAttachments: PDF, PNG, JPEG, GIF, WebP or " +
		"XML, recognised from their bytes (415 otherwise; HTML and SVG are refused even as XML), up to 10 " +
		"MiB each (413), with plain file names (400 `Invalid file name. …`).\n\nfincom's, on insert: `installments` (2 to 48, " +
		"optionally with `installment_dates`) splits the entry into instalments, each its own entry of a group, the attachments on " +
		"the first, `token` the first's; `recurrence_every_months` (1 to 12) with `recurrence_times` (2 to 120) or `recurrence_until` " +
		"makes the entry the first occurrence of a repeating one, each next made by the daily job `recurrence_lead_days` (default 10) " +
		"before it is due, once. Neither with `id_token_screening`, nor both at once (422)."
	docCancelEntryGroup = "Cancels the open instalments of the group the entry (`id_token`, any instalment's) belongs to, as " +
		"`active: false` cancels one; paid ones stay. Answers the group's token. 404 when the entry is in no group."
	docStopEntryRecurrence = "Stops the recurrence the entry (`id_token`, any occurrence's) belongs to: no occurrence is made " +
		"after; those made stay. 404 when the entry repeats nothing (or was stopped)."
	docUpdateEntry = "Changes the sent fields of an expense (`/update_expense`) or income (`/update_income`), `id_token` " +
		"naming it, and attaches the sent files; at least one field or file (400 `No fields provided to " +
		"update`). `active: false` cancels the entry, `pay_day: \"\"` reopens it. An expense's token on the " +
		"income route is not found, and the reverse (404 `Expense not found or not updated.` / `Income not " +
		"found or not updated.`)."
)

package ledger

import (
	"context"

	"fincom/server/problem"
	"fincom/store"
)

// DefaultLead is how many days before it is due an occurrence is made
// when none is asked: time to pay a boleto that arrives by mail.
const DefaultLead = 10

// Refusals of a recurrence.
var (
	ErrEvery         = problem.New(problem.Unprocessable, "recurrence_every_months: from 1 to 12")
	ErrRecurEnd      = problem.New(problem.Unprocessable, "a recurrence ends: give recurrence_times (2 to 120) or recurrence_until (a date after the first due date), not both")
	ErrLead          = problem.New(problem.Unprocessable, "recurrence_lead_days: from 0 to 60")
	ErrSplitOnce     = problem.New(problem.Unprocessable, "an entry is split in instalments or repeats, not both")
	ErrWithScreening = problem.New(problem.Unprocessable, "a screened document makes one entry: split or repeat it with an entry of its own")
)

// CheckRecurrence holds a recurrence to its bounds, the first due date
// given: every 1 to 12 months, ending after 2 to 120 occurrences or on a
// date after the first, made 0 to 60 days before each is due.
func CheckRecurrence(r store.Recurrence, firstDue string) error {
	switch {
	case r.EveryMonths < 1 || r.EveryMonths > 12:
		return ErrEvery
	case (r.Times == 0) == (r.Until == ""):
		return ErrRecurEnd
	case r.Times != 0 && (r.Times < 2 || r.Times > 120):
		return ErrRecurEnd
	case r.LeadDays < 0 || r.LeadDays > 60:
		return ErrLead
	}
	if r.Until != "" {
		until, err := store.ParseDateISO(r.Until)
		if err != nil || until.ISO() <= firstDue {
			return ErrRecurEnd
		}
	}
	return nil
}

// CreateRecurring makes f, the first occurrence of a recurrence, with a
// form's one-time key; it answers the entry's token.
func CreateRecurring(ctx context.Context, db *store.DB, unitID int64, formKey string, f store.EntryFields, r store.Recurrence,
	files []store.NewFile) (string, bool, error) {
	if err := CheckRecurrence(r, f.DueDate); err != nil {
		return "", false, err
	}
	return db.InsertRecurringEntryOnce(ctx, unitID, formKey, f, r, files)
}

// next is the due date of a recurrence's occurrence after the made ones,
// and whether it is one (the recurrence has not ended): due every
// EveryMonths months on its first's day of month (or the month's last).
func next(r store.RecurrenceState) (string, bool) {
	anchor, err := store.ParseDateISO(r.AnchorDue)
	if err != nil || r.Stopped || (r.Times > 0 && r.Made >= r.Times) {
		return "", false
	}
	due := store.AddMonths(anchor, r.EveryMonths*r.Made).ISO()
	if r.Until != "" && due > r.Until {
		return "", false
	}
	return due, true
}

// RunRecurrences makes every occurrence due by today plus its lead, of
// every recurrence of the domain, once: a day run twice, or after a
// restart or a clock moved back, makes nothing more; a day after days
// down makes each one missed. It answers the entries made.
func RunRecurrences(ctx context.Context, db *store.DB, today store.Date) ([]string, error) {
	active, err := db.ActiveRecurrences(ctx)
	if err != nil {
		return nil, err
	}
	made := []string{}
	for _, r := range active {
		for {
			due, ok := next(r)
			if !ok || today.AddDate(0, 0, r.LeadDays).Format("2006-01-02") < due {
				break
			}
			token, err := db.AddOccurrence(ctx, r, due)
			if err != nil {
				return made, err
			}
			if token == "" {
				break // made by another run
			}
			made = append(made, token)
			r.Made++
		}
	}
	return made, nil
}

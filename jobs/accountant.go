package jobs

import (
	"context"

	"fincom/server/accounting"
	"fincom/server/invoicing"
	"fincom/store"
)

// AccountantJob e-mails each unit's accountant (its profile's
// accountant_email) the package of the month before, on AccountantDay:
// the statements of the month's last days have come in by then.
const (
	// EntryRecurrenceJob makes the occurrences of repeating bills and
	// incomes, daily.
	EntryRecurrenceJob = "entry_recurrence"
	AccountantJob      = accounting.PackageMail
	AccountantDay      = 5
)

// mailAccountantPackages queues, for every unit of db with an accountant's
// address, the package of the month before day's, once (its dedupe key).
func (r *Runner) mailAccountantPackages(ctx context.Context, db *store.DB, day store.Date) (Result, error) {
	res := Result{Job: AccountantJob, Date: day.ISO(), Created: []string{}}
	first := store.AddMonths(day.FirstOfMonth(), -1)
	month := first.Format("2006-01")
	units, err := db.Units(ctx)
	if err != nil {
		return res, err
	}
	inv := r.Invoices
	if inv == nil {
		inv = &invoicing.Service{}
	}
	for _, u := range units {
		p, err := db.UnitProfile(ctx, u.ID)
		if err != nil {
			return res, err
		}
		if p.AccountantEmail == "" {
			continue
		}
		if err := accounting.MailPackage(ctx, db, inv, u, first, p.AccountantEmail, AccountantJob+":"+u.Token+":"+month); err != nil {
			return res, err
		}
		res.Created = append(res.Created, u.Token+":"+month)
	}
	return res, nil
}

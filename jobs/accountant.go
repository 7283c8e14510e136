package jobs

import (
	"context"
	"fmt"

	"fincom/server/accounting"
	"fincom/server/invoicing"
	"fincom/store"
)

// AccountantJob e-mails each unit's accountant (its profile's
// accountant_email) the package of the month before, on AccountantDay:
// the statements of the month's last days have come in by then.
const (
	AccountantJob = "accountant_package"
	AccountantDay = 5
)

// maxPackageMail bounds the package an e-mail carries; a larger one is
// said to be downloaded from the portal instead (mail servers refuse
// messages of 25 MB and more).
const maxPackageMail = 18 << 20

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
		zip, m, err := accounting.Package(ctx, db, inv, u, first)
		if err != nil {
			return res, fmt.Errorf("unit %s: %w", u.Name, err)
		}
		n := store.Notice{Kind: AccountantJob, To: p.AccountantEmail, Subject: "Pacote do contador · " + u.Name + " · " + month,
			Body: m.Text(), DedupeKey: AccountantJob + ":" + u.Token + ":" + month}
		if len(zip) <= maxPackageMail {
			n.Attachments = []store.Attachment{{Name: "contador-" + month + ".zip", ContentType: "application/zip", Data: zip}}
		} else {
			n.Body += "\r\nO pacote tem " + fmt.Sprint(len(zip)>>20) + " MiB, mais do que um e-mail leva: baixe-o no portal (DRE, Pacote do contador).\r\n"
		}
		if err := db.QueueUnitNotice(ctx, u.ID, n); err != nil {
			return res, err
		}
		res.Created = append(res.Created, u.Token+":"+month)
	}
	return res, nil
}

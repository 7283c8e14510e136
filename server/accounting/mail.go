package accounting

import (
	"context"
	"fmt"

	"fincom/server/invoicing"
	"fincom/store"
)

// PackageMail is the kind of the e-mails that carry an accountant's
// package.
const PackageMail = "accountant_package"

// maxPackageMail bounds the package an e-mail carries; a larger one is
// said to be downloaded from the portal instead (mail servers refuse
// messages of 25 MB and more).
const maxPackageMail = 18 << 20

// MailPackage queues the e-mail of the unit's package of the month that
// begins on first to the address to, once per dedupe key: the manifest
// as the message, the ZIP attached (or, too large, the portal named).
func MailPackage(ctx context.Context, db *store.DB, inv *invoicing.Service, u store.Unit, first store.Date, to, dedupe string) error {
	zip, m, err := Package(ctx, db, inv, u, first)
	if err != nil {
		return fmt.Errorf("unit %s: %w", u.Name, err)
	}
	month := first.Format("2006-01")
	n := store.Notice{Kind: PackageMail, To: to, Subject: "Pacote do contador · " + u.Name + " · " + month, Body: m.Text(), DedupeKey: dedupe}
	if len(zip) <= maxPackageMail {
		n.Attachments = []store.Attachment{{Name: "contador-" + month + ".zip", ContentType: "application/zip", Data: zip}}
	} else {
		n.Body += "\r\nO pacote tem " + fmt.Sprint(len(zip)>>20) + " MiB, mais do que um e-mail leva: baixe-o no portal (DRE, Pacote do contador).\r\n"
	}
	return db.QueueUnitNotice(ctx, u.ID, n)
}

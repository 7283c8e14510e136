package billing

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/problem"
	"fincom/server/psp"
	"fincom/store"
)

// DefaultReminderDays is a unit's collection schedule until it says
// another: a reminder on the due day, 3 and 10 days after it.
const DefaultReminderDays = "0,3,10"

// maxReminderDay bounds a schedule's steps: a reminder at most 60 days
// after the due date.
const maxReminderDay = 60

// ErrReminderDays is a schedule that is not days after the due date.
var ErrReminderDays = problem.New(problem.Invalid, "The reminders' days are whole days after the due date, 0 to 60, each once.")

// ReminderSteps reads a unit's schedule ("0,3,10"; "" none): the days
// after a charge's due date a reminder goes, in order.
func ReminderSteps(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 || n > maxReminderDay || slices.Contains(out, n) {
			return nil, ErrReminderDays
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// dueStep is the step of the reminder due on day (YYYY-MM-DD) of a
// charge: of its steps (the notice notify_days_charge before its due
// date, then the unit's schedule after it), the latest whose day has
// come, unless it was sent, or a reminder of the charge was sent that
// day. A step missed (days down) is not sent once a later one is due:
// the customer gets the reminder of the day, never a burst.
func dueStep(c store.ReminderCandidate, day string) (int, bool) {
	if c.SentToday {
		return 0, false
	}
	steps, err := ReminderSteps(c.Steps)
	if err != nil {
		steps, _ = ReminderSteps(DefaultReminderDays)
	}
	if c.NotifyDays > 0 {
		steps = append([]int{-c.NotifyDays}, steps...)
	}
	since, ok := daysApartSigned(c.Due.DueDate, day)
	if !ok {
		return 0, false
	}
	best, found := 0, false
	for _, s := range steps {
		if s <= since {
			best, found = s, true
		}
	}
	if !found || slices.Contains(c.Sent, best) {
		return 0, false
	}
	return best, true
}

// daysApartSigned is day less due in calendar days (negative before).
func daysApartSigned(due, day string) (int, bool) {
	d, ok := daysApart(due, day)
	if ok && day < due {
		d = -d
	}
	return d, ok
}

// SendReminders e-mails, for the open charges of every unit, the
// reminder due on day (dueStep), each stating what the charge asks that
// day by its own terms (Rules.Owed) and carrying what pays it, recorded
// once per step (store.RecordReminder: the e-mail, the order's history,
// charge.reminder_sent). It answers how many it sent.
func (s *Service) SendReminders(ctx context.Context, db *store.DB, day store.Date) (int, error) {
	cs, err := db.ReminderCandidates(ctx, day)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cs {
		step, ok := dueStep(c, day.ISO())
		if !ok {
			continue
		}
		sent, err := s.remind(ctx, db, c, &step, day)
		if err != nil {
			return n, fmt.Errorf("reminder of charge %s: %w", c.ChargeToken, err)
		}
		if sent {
			n++
		}
	}
	return n, nil
}

// remind e-mails a charge's reminder of step (nil: a person's resend) on
// day and records it.
func (s *Service) remind(ctx context.Context, db *store.DB, c store.ReminderCandidate, step *int, day store.Date) (bool, error) {
	owed := Rules{}.Owed(c.Due, day.ISO())
	d := render.MailData{Seller: c.Seller, Customer: c.Customer, OrderCode: c.OrderCode, Description: c.Description,
		Amount: render.BRL(c.Due.Amount.StringFixed(2)), DueDate: render.DateBR(c.Due.DueDate), PaymentURL: s.Links.Payment(c.PublicToken),
		AmountDue: render.BRL(owed.Total().StringFixed(2)), Resend: step == nil}
	if owed.Fine.IsPositive() {
		d.Fine = render.BRL(owed.Fine.StringFixed(2))
	}
	if owed.Interest.IsPositive() {
		d.Interest = render.BRL(owed.Interest.StringFixed(2))
	}
	if since, ok := daysApartSigned(c.Due.DueDate, day.ISO()); ok {
		switch {
		case since < 0 && step != nil:
			d.Before = -since
		case since == 0 && step != nil:
			d.DueDay = true
		case since > 0:
			d.Late = since
		}
	}
	var files []store.Attachment
	// A boleto pays as it was registered, the bank computing its fine and
	// interest; one the bank has not registered (or refused) is not sent.
	if c.BoletoLine != "" && c.Registration != "pending" && c.Registration != "sent" && c.Registration != "rejected" {
		d.BoletoLine = render.FormatLine(c.BoletoLine)
		pdf, name, err := s.boletoPDF(ctx, db, c)
		if err != nil {
			return false, err
		}
		if pdf != nil {
			files, d.BoletoAttached = append(files, store.Attachment{Name: name, ContentType: "application/pdf", Data: pdf}), true
		}
	}
	switch {
	case c.PixPayload != "" && pixPayable(c, day):
		d.PixCode = c.PixPayload
	case c.PixPayload != "":
		// Past its validity a PIX with due date pays no more: a new one
		// is issued for what the charge asks today.
		code, err := s.reissueCobv(ctx, db, c, day, owed)
		if err != nil {
			return false, err
		}
		d.PixCode = code
	}
	notice, err := s.Render.Notice("charge_reminder", c.Email, reminderKey(c, step), d)
	if err != nil || notice == nil {
		return false, err
	}
	// The outbox says which it is: the notice before the due date, a
	// reminder of the schedule, a person's resend.
	notice.Attachments, notice.Kind = files, "charge_reminder"
	switch {
	case step == nil:
		notice.Kind = "charge_resent"
	case *step < 0:
		notice.Kind = "charge_notice"
	}
	return db.RecordReminder(ctx, c.UnitID, store.Reminder{ChargeToken: c.ChargeToken, Step: step, Day: day.ISO(), AmountDue: owed.Total(),
		Fine: owed.Fine, Interest: owed.Interest, Channel: "email"}, notice)
}

// reminderKey keeps a step's e-mail once in the outbox, for the due date
// the charge has (a boleto given a new one is reminded of it anew); a
// person's resend is sent each time it is asked.
func reminderKey(c store.ReminderCandidate, step *int) string {
	if step == nil {
		return ""
	}
	return "charge_reminder:" + c.ChargeToken + ":" + c.Due.DueDate + ":" + strconv.Itoa(*step)
}

// pixPayable: the charge's PIX code still pays it on day: a PIX with due
// date within its validity after it (cobvValidity days), an immediate
// one until its due date.
func pixPayable(c store.ReminderCandidate, day store.Date) bool {
	kind, _, ok := pspRef(c.Due.Ref)
	late := daysLate(c.Due.DueDate, day.ISO())
	switch {
	case !ok:
		return late == 0
	case kind == "cobv":
		return late <= cobvValidity
	}
	return late == 0
}

// boletoPDF is the PDF of the candidate's boleto, as the payment page
// serves it, and its file name.
func (s *Service) boletoPDF(ctx context.Context, db *store.DB, c store.ReminderCandidate) ([]byte, string, error) {
	o, err := db.PortalOrder(ctx, c.PublicToken)
	if err != nil {
		return nil, "", err
	}
	all, err := db.SalesOrderCharges(ctx, c.UnitID, c.OrderToken)
	if err != nil {
		return nil, "", err
	}
	for _, ch := range all {
		if ch.Token != c.ChargeToken || !ch.BoletoBarcode.Valid {
			continue
		}
		info, err := db.BoletoInfo(ctx, c.PublicToken, ch.Token)
		if err != nil {
			return nil, "", err
		}
		b, err := render.BoletoPDF(BoletoDocument(o, ch, info), ch.BoletoBarcode.String)
		return b, fmt.Sprintf("boleto-%s-%d.pdf", o.CodOrders, ch.Installment), err
	}
	return nil, "", nil
}

// reissueCobv issues at the unit's PSP a new PIX with due date for what
// the charge asks on day (its principal, fine and interest: frozen in it,
// none added after), due that day and valid cobvValidity days after it,
// and makes it the charge's; "" when the charge is not a PIX with due
// date at a PSP the unit is connected to.
func (s *Service) reissueCobv(ctx context.Context, db *store.DB, c store.ReminderCandidate, day store.Date, owed store.Owed) (string, error) {
	kind, _, ok := pspRef(c.Due.Ref)
	if !ok || kind != psp.WithDue || s.PSPs == nil {
		return "", nil
	}
	cl, connected, err := s.PSPs.Client(ctx, db, c.UnitID)
	if err != nil || !connected {
		return "", err
	}
	payer, err := db.OrderPayer(ctx, c.UnitID, c.OrderToken)
	if err != nil {
		return "", err
	}
	city := "BRASIL"
	if m, ok := brdoc.LookupIBGE(c.UnitCityIBGE); ok {
		city = m.Name
	}
	txid := pspTxID(c.ChargeToken + ":reissue:" + day.ISO())
	issued, err := putAtPSP(ctx, cl, payer, c.OrderCode, txid, owed.Total().StringFixed(2), day.Time, day.Time, c.Seller, city, true)
	if err != nil {
		return "", err
	}
	late := store.NewMoney(owed.Fine.Add(owed.Interest.Decimal))
	if err := db.ReissueCharge(ctx, c.UnitID, c.ChargeToken, day.ISO(), late, issued.Ref, issued.PixTxID, issued.PixPayload); err != nil {
		return "", err
	}
	return issued.PixPayload, nil
}

package billing

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"fincom/render"
	"fincom/server/bank"
	"fincom/server/brdoc"
	"fincom/server/problem"
	"fincom/store"
)

// BoletoDocument is what the boleto of an order's charge prints, as the
// payment page shows it and the reminders attach it: the beneficiary,
// the payer, the line and bar code, the late terms it was registered
// with (finePercent, interestMonthly), and the bank's own fields.
func BoletoDocument(o store.PortalOrder, c store.Charge, info store.BoletoInfo) render.BoletoPageData {
	code := c.BoletoBarcode.String[:3]
	// The terms it was registered with (its agreement's), a day past its
	// due date.
	fineRate, monthly := finePercent, interestMonthly
	if info.Agreement != nil {
		fineRate, monthly = agreementTerms(*info.Agreement)
	}
	fine, perDay := lateParts(c.Amount.Decimal, 1, fineRate, monthly)
	d := render.BoletoPageData{Bank: bank.CodeWithDigit(code), Seller: o.UnitName, SellerCNPJ: brdoc.FormatCNPJ(o.UnitCNPJ),
		SellerAddress: address(info.UnitStreet, info.UnitNumber, info.UnitDistrict, "", "", info.UnitZip, info.UnitCityIBGE),
		Customer:      cmp.Or(info.PayerName, o.ContactName), CustomerDocument: formatDocument(info.PayerDocument),
		CustomerAddress: address(info.PayerStreet, info.PayerNumber, info.PayerDistrict, info.PayerCity, info.PayerState, info.PayerZip, ""),
		OrderCode:       o.CodOrders, Description: o.Description, DocumentNumber: fmt.Sprintf("%s/%d", o.CodOrders, c.Installment),
		DocumentKind: "DM", Acceptance: "N", DocumentDate: render.DateBR(info.Processed), ProcessingDate: render.DateBR(info.Processed),
		Currency: "R$", Amount: render.BRL(c.Amount.String()), DueDate: render.DateBR(c.DueDate), Line: render.FormatLine(c.BoletoLine.String),
		PaymentPlace: "Pagável em qualquer banco, mesmo após o vencimento",
		Instructions: []string{
			fmt.Sprintf("Após o vencimento, multa de %s%% (%s) e juros de mora de %s%% ao mês (%s ao dia).", render.BRNumber(fineRate.String()),
				render.BRL(fine.StringFixed(2)), render.BRNumber(monthly.String()), render.BRL(perDay.StringFixed(2))),
			"Referente ao pedido " + o.CodOrders + ": " + o.Description + ".",
		},
		Paid: c.Status == store.ChargePaid}
	if d.Paid && c.PaidAt.Valid {
		d.PaidOn = render.DateBR(c.PaidAt.Time().Format(time.DateOnly))
	}
	if b, ok := bank.ByCode(code); ok {
		d.BankName = b.Name
		if a := info.Agreement; a != nil {
			ba := BankAgreement(*a, o.UnitName, o.UnitCNPJ)
			var n int64
			fmt.Sscan(c.OurNumber.String, &n)
			if our, err := b.OurNumber(ba, n); err == nil {
				d.OurNumber = b.Printed(ba, our)
			}
			d.AgencyCode, d.Wallet, d.Simulated = b.Beneficiary(ba), a.Wallet, a.Simulated
		}
	}
	return d
}

// formatDocument masks a CPF or CNPJ as printed documents show it.
func formatDocument(doc string) string {
	switch d := brdoc.Clean(doc); len(d) {
	case 11:
		return "CPF " + brdoc.FormatCPF(d)
	case 14:
		return "CNPJ " + brdoc.FormatCNPJ(d)
	}
	return ""
}

// address writes an address on one line: street and number, district,
// city and state (or the IBGE municipality's), CEP.
func address(street, number, district, city, state, zip, ibge string) string {
	if m, ok := brdoc.LookupIBGE(ibge); ok && city == "" {
		city, state = m.Name, m.State
	}
	var parts []string
	if s := strings.TrimSpace(strings.TrimSpace(street) + ", " + strings.TrimSpace(number)); s != "," {
		parts = append(parts, strings.Trim(s, ", "))
	}
	for _, p := range []string{district, strings.Trim(strings.TrimSpace(city)+" - "+strings.TrimSpace(state), " -")} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, strings.TrimSpace(p))
		}
	}
	if z := brdoc.Digits(zip); len(z) == 8 {
		parts = append(parts, "CEP "+z[:5]+"-"+z[5:])
	}
	return strings.Join(parts, " · ")
}

// Refusals of a new due date.
var (
	ErrNotABoleto = problem.New(problem.Conflict, "Only an open boleto registered with a bank is given a new due date; any other charge is cancelled and charged again.")
	ErrDueDate    = problem.New(problem.Invalid, "Invalid due_date: a day from today to 5 years ahead, YYYY-MM-DD.")
)

// maxNewDueYears bounds how far a boleto's new due date may be.
const maxNewDueYears = 5

// ChangeBoletoDue gives the unit's order's open boleto (installment n; 0
// the first open one) a new due date, at the office's asking, never by
// e-mail: its line and bar code are made again with it (the same
// our-number), it is open again (PENDING), and a boleto the bank has
// received (sent or registered under a production agreement) waits for
// the next remittance to tell the bank (movement 06); one not yet sent
// goes with it. What it asks from then counts its fine and interest from
// the new date (Rules.Owed), and its reminders start anew.
func (s *Service) ChangeBoletoDue(ctx context.Context, db *store.DB, unit store.Unit, orderToken string, n int, due string) error {
	day, err := store.ParseDateISO(due)
	today := store.Today(db.Now())
	if err != nil || day.Before(today.Time) || day.After(today.AddDate(maxNewDueYears, 0, 0)) {
		return ErrDueDate
	}
	return db.Write(ctx, func(tx *store.Tx) error {
		b, err := tx.OpenBoletoOfOrder(unit.ID, orderToken, n)
		if err != nil {
			return err
		}
		bk, ok := bank.Of(b.Agreement.Bank, b.Provider)
		if b.PaymentKey != "BOLETO" || b.Agreement.ID == 0 || !ok || b.OurNumber == 0 || b.Registration == "rejected" {
			return ErrNotABoleto
		}
		ba := BankAgreement(b.Agreement, unit.Name, unit.CNPJ)
		our, err := bk.OurNumber(ba, b.OurNumber)
		if err != nil {
			return err
		}
		boleto, err := bk.Boleto(ba, our, day.Time, b.Amount.Decimal)
		if err != nil {
			return err
		}
		remit := !b.Agreement.Simulated && (b.Registration == "sent" || b.Registration == "registered")
		if err := tx.RescheduleBoleto(b, day.ISO(), boleto.Line, boleto.Barcode, store.ChargePending, remit); err != nil {
			return err
		}
		store.SetAuditRecord(ctx, "charge "+b.Token+" due date "+b.DueDate+" → "+day.ISO())
		return tx.RefreshOrder(b.OrderID)
	})
}

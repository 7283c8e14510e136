package billing

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fincom/render"
	"fincom/server/bank"
	"fincom/server/brdoc"
	"fincom/store"
)

// BoletoDocument is what the boleto of an order's charge prints, as the
// payment page shows it and the reminders attach it: the beneficiary,
// the payer, the line and bar code, the late terms it was registered
// with (finePercent, interestMonthly), and the bank's own fields.
func BoletoDocument(o store.PortalOrder, c store.Charge, info store.BoletoInfo) render.BoletoPageData {
	code := c.BoletoBarcode.String[:3]
	// The terms it was registered with, a day past its due date.
	fine, perDay := lateParts(c.Amount.Decimal, 1)
	d := render.BoletoPageData{Bank: code + "-" + bankDigit(code), Seller: o.UnitName, SellerCNPJ: brdoc.FormatCNPJ(o.UnitCNPJ),
		SellerAddress: address(info.UnitStreet, info.UnitNumber, info.UnitDistrict, "", "", info.UnitZip, info.UnitCityIBGE),
		Customer:      cmp.Or(info.PayerName, o.ContactName), CustomerDocument: formatDocument(info.PayerDocument),
		CustomerAddress: address(info.PayerStreet, info.PayerNumber, info.PayerDistrict, info.PayerCity, info.PayerState, info.PayerZip, ""),
		OrderCode:       o.CodOrders, Description: o.Description, DocumentNumber: fmt.Sprintf("%s/%d", o.CodOrders, c.Installment),
		DocumentKind: "DM", Acceptance: "N", DocumentDate: render.DateBR(info.Processed), ProcessingDate: render.DateBR(info.Processed),
		Currency: "R$", Amount: render.BRL(c.Amount.String()), DueDate: render.DateBR(c.DueDate), Line: render.FormatLine(c.BoletoLine.String),
		PaymentPlace: "Pagável em qualquer banco, mesmo após o vencimento",
		Instructions: []string{
			fmt.Sprintf("Após o vencimento, multa de 2%% (%s) e juros de mora de 1%% ao mês (%s ao dia).",
				render.BRL(fine.StringFixed(2)), render.BRL(perDay.StringFixed(2))),
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

// bankDigit is the check digit printed after a bank's code (module 11).
func bankDigit(code string) string {
	sum := 0
	for i, w := range []int{4, 3, 2} {
		sum += int(code[i]-'0') * w
	}
	d := 11 - sum%11
	switch d {
	case 10:
		return "X"
	case 11:
		return "0"
	}
	return strconv.Itoa(d)
}

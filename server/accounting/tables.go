package accounting

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fincom/render"
	"fincom/server/billing"
	"fincom/server/brdoc"
	"fincom/server/fiscal"
	"fincom/store"
)

// EntriesTable is entries as the portal and the accountant's package
// export them: what an accountant books each by (its category and DRE
// group, its competence, due and payment days, its document, the contact
// and its CPF or CNPJ, the account).
func EntriesTable(name string, entries []store.EntrySummary) render.Table {
	t := render.Table{Name: name, Columns: []render.Column{{Title: "Tipo", Kind: render.ColText}, {Title: "Descrição", Kind: render.ColText},
		{Title: "Categoria", Kind: render.ColText}, {Title: "Grupo do DRE", Kind: render.ColText}, {Title: "Competência", Kind: render.ColDate},
		{Title: "Vencimento", Kind: render.ColDate}, {Title: "Pagamento", Kind: render.ColDate}, {Title: "Documento", Kind: render.ColText},
		{Title: "Parcela", Kind: render.ColText}, {Title: "Grupo de parcelas", Kind: render.ColText}, {Title: "Contato", Kind: render.ColText}, {Title: "CPF/CNPJ", Kind: render.ColText}, {Title: "Conta", Kind: render.ColText},
		{Title: "Banco", Kind: render.ColText}, {Title: "Agência", Kind: render.ColText}, {Title: "Número da conta", Kind: render.ColText},
		{Title: "Valor", Kind: render.ColMoney}}}
	for _, e := range entries {
		t.Rows = append(t.Rows, []string{map[string]string{"in": "Receita", "out": "Despesa"}[e.Type], e.Description, e.Category, e.Group, e.Competence,
			e.DueDate, e.PayDay, e.Document, instalment(e), e.GroupToken, e.Contact, brdoc.FormatRegister(e.ContactRegister), e.Account, e.Bank, e.Agency, e.AccountNumber,
			e.Value.StringFixed(2)})
	}
	return t
}

// DRETable is a DRE's lines with the period's and the previous period's
// amounts.
func DRETable(d DRE) render.Table {
	period := render.DateBR(d.From) + " a " + render.DateBR(d.To)
	t := render.Table{Name: "DRE " + period, Columns: []render.Column{{Title: "Linha", Kind: render.ColText},
		{Title: period, Kind: render.ColMoney}, {Title: render.DateBR(d.PreviousFrom) + " a " + render.DateBR(d.PreviousTo), Kind: render.ColMoney}}}
	for _, l := range d.Lines {
		t.Rows = append(t.Rows, []string{l.Label, l.Amount.StringFixed(2), l.Previous.StringFixed(2)})
	}
	return t
}

// StatementTable is statement lines with where each stands, each with
// its account (its nickname, bank, agency and number, of accounts).
func StatementTable(name string, lines []store.StatementLine, accounts []store.BankAccount) render.Table {
	t := render.Table{Name: name, Columns: []render.Column{{Title: "Conta", Kind: render.ColText}, {Title: "Banco", Kind: render.ColText},
		{Title: "Agência", Kind: render.ColText}, {Title: "Número da conta", Kind: render.ColText}, {Title: "Data", Kind: render.ColDate},
		{Title: "Valor", Kind: render.ColMoney}, {Title: "Histórico", Kind: render.ColText}, {Title: "Situação", Kind: render.ColText},
		{Title: "Conciliação", Kind: render.ColText}, {Title: "FITID", Kind: render.ColText}}}
	byToken := map[string]store.BankAccount{}
	for _, a := range accounts {
		byToken[a.Token] = a
	}
	withDigit := func(n, dv store.Text) string {
		if dv.String != "" {
			return n.String + "-" + dv.String
		}
		return n.String
	}
	for _, l := range lines {
		a := byToken[l.BankAccount]
		t.Rows = append(t.Rows, []string{a.NickName.String, a.BankName, withDigit(a.Agency, a.DvAgencia), withDigit(a.CurrentAccount, a.DvConta),
			l.Date, l.Amount.StringFixed(2), l.Memo.String,
			map[string]string{"open": "Em aberto", "matched": "Conciliada", "dismissed": "Descartada"}[l.Status],
			map[string]string{"exact": "automática", "window": "automática", "person": "manual"}[l.MatchedBy.String], l.FITID})
	}
	return t
}

// UnitAccounts are the unit's bank accounts, active or not, that its
// statement lines may name.
func UnitAccounts(ctx context.Context, db *store.DB, unitID int64) ([]store.BankAccount, error) {
	active, err := db.BankAccounts(ctx, unitID, true)
	if err != nil {
		return nil, err
	}
	disabled, err := db.BankAccounts(ctx, unitID, false)
	return append(active, disabled...), err
}

// NotesTable is the invoices a unit issued as an accountant books them:
// kind, series, number, key, emission day, customer and CPF or CNPJ, the
// CFOPs of a note of goods, its value (an NF-e's or NFC-e's vNF, a
// service note's value), each tax it states (ICMS, ISS, PIS, COFINS, IBS,
// CBS) and its status.
func NotesTable(name string, notes []store.MonthInvoice) (render.Table, error) {
	t := render.Table{Name: name, Columns: []render.Column{{Title: "Tipo", Kind: render.ColText}, {Title: "Série", Kind: render.ColInt},
		{Title: "Número", Kind: render.ColInt}, {Title: "Chave", Kind: render.ColText}, {Title: "Emissão", Kind: render.ColDate},
		{Title: "Pedido", Kind: render.ColText}, {Title: "Cliente", Kind: render.ColText}, {Title: "CPF/CNPJ do cliente", Kind: render.ColText},
		{Title: "CFOP", Kind: render.ColText}, {Title: "Valor", Kind: render.ColMoney}, {Title: "ICMS", Kind: render.ColMoney},
		{Title: "ISS", Kind: render.ColMoney}, {Title: "PIS", Kind: render.ColMoney}, {Title: "COFINS", Kind: render.ColMoney},
		{Title: "IBS", Kind: render.ColMoney}, {Title: "CBS", Kind: render.ColMoney}, {Title: "Situação", Kind: render.ColText},
		{Title: "Protocolo", Kind: render.ColText}}}
	for _, n := range notes {
		v, err := stated(n)
		if err != nil {
			return t, fmt.Errorf("note %s %d: %w", n.Kind, n.Number, err)
		}
		t.Rows = append(t.Rows, []string{render.InvoiceKindName(n.Kind), strconv.Itoa(n.Series), strconv.Itoa(n.Number), n.AccessKey.String,
			store.Today(n.IssuedTime()).ISO(), n.OrderCode, n.Customer, brdoc.FormatRegister(n.CustomerRegister), v.cfop, v.value, v.icms, v.iss,
			v.pis, v.cofins, v.ibs, v.cbs, render.InvoiceStatusName(n.Status), n.Protocol})
	}
	return t, nil
}

// noteAmounts are what a note states, as decimal text.
type noteAmounts struct{ cfop, value, icms, iss, pis, cofins, ibs, cbs string }

// stated reads a note's amounts: an NF-e's or NFC-e's from its document
// (its items' CFOPs, ICMSTot and IBSCBSTot), a service note's from its
// order (what it bills, its ISS), as the note states them.
func stated(n store.MonthInvoice) (noteAmounts, error) {
	zero := "0.00"
	a := noteAmounts{value: billing.Rules{}.Billed(n.Bill).StringFixed(2), icms: zero, iss: zero, pis: zero, cofins: zero, ibs: zero, cbs: zero}
	if n.Kind != "nfe" && n.Kind != "nfce" {
		a.iss = n.Taxes.TaxIssAmount.StringFixed(2)
		return a, nil
	}
	p, err := fiscal.ReadNFeProc([]byte(n.XML))
	if err != nil {
		return a, err
	}
	var cfops []string
	for _, d := range p.NFe.Inf.Det {
		if !slices.Contains(cfops, d.Prod.CFOP) {
			cfops = append(cfops, d.Prod.CFOP)
		}
	}
	tot := p.NFe.Inf.Total
	a.cfop, a.value, a.icms, a.pis, a.cofins = strings.Join(cfops, ", "), tot.ICMSTot.VNF, tot.ICMSTot.VICMS, tot.ICMSTot.VPIS, tot.ICMSTot.VCOFINS
	if t := tot.IBSCBSTot; t != nil {
		a.ibs, a.cbs = cmp.Or(t.GIBS.VIBS, zero), cmp.Or(t.GCBS.V, zero)
	}
	return a, nil
}

// instalment is an entry's place in its group ("2/3"), or "".
func instalment(e store.EntrySummary) string {
	if e.Instalments == 0 {
		return ""
	}
	return strconv.Itoa(e.Instalment) + "/" + strconv.Itoa(e.Instalments)
}

package accounting

import (
	"fincom/render"
	"fincom/store"
)

// EntriesTable is entries as the portal and the accountant's package
// export them.
func EntriesTable(name string, entries []store.EntrySummary) render.Table {
	t := render.Table{Name: name, Columns: []render.Column{{Title: "Tipo", Kind: render.ColText}, {Title: "Descrição", Kind: render.ColText},
		{Title: "Contato", Kind: render.ColText}, {Title: "Vencimento", Kind: render.ColDate}, {Title: "Pagamento", Kind: render.ColDate},
		{Title: "Conta", Kind: render.ColText}, {Title: "Valor", Kind: render.ColMoney}}}
	for _, e := range entries {
		t.Rows = append(t.Rows, []string{map[string]string{"in": "Receita", "out": "Despesa"}[e.Type], e.Description, e.Contact, e.DueDate, e.PayDay,
			e.Account, e.Value.StringFixed(2)})
	}
	return t
}

// DRETable is a DRE's lines with the period's and the previous period's
// amounts.
func DRETable(d DRE) render.Table {
	t := render.Table{Name: "DRE " + d.From + " a " + d.To, Columns: []render.Column{{Title: "Linha", Kind: render.ColText},
		{Title: d.From + " a " + d.To, Kind: render.ColMoney}, {Title: d.PreviousFrom + " a " + d.PreviousTo, Kind: render.ColMoney}}}
	for _, l := range d.Lines {
		t.Rows = append(t.Rows, []string{l.Label, l.Amount.StringFixed(2), l.Previous.StringFixed(2)})
	}
	return t
}

// StatementTable is statement lines with where each stands.
func StatementTable(name string, lines []store.StatementLine) render.Table {
	t := render.Table{Name: name, Columns: []render.Column{{Title: "Data", Kind: render.ColDate}, {Title: "Valor", Kind: render.ColMoney},
		{Title: "Histórico", Kind: render.ColText}, {Title: "Situação", Kind: render.ColText}, {Title: "Conciliação", Kind: render.ColText},
		{Title: "FITID", Kind: render.ColText}}}
	for _, l := range lines {
		t.Rows = append(t.Rows, []string{l.Date, l.Amount.StringFixed(2), l.Memo.String,
			map[string]string{"open": "Em aberto", "matched": "Conciliada", "dismissed": "Descartada"}[l.Status],
			map[string]string{"exact": "automática", "window": "automática", "person": "manual"}[l.MatchedBy.String], l.FITID})
	}
	return t
}

package accounting

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/server/invoicing"
	"fincom/store"
)

// Manifest is what the accountant's package of a month holds, counted and
// totalled, as its manifest.json says it (manifesto.txt in Portuguese).
type Manifest struct {
	Unit     string        `json:"unit"`
	CNPJ     string        `json:"cnpj"`
	Month    string        `json:"month"`
	Made     string        `json:"made_at"`
	Issued   []IssuedCount `json:"issued"`
	Received struct {
		Count int         `json:"count"`
		Total store.Money `json:"total"`
	} `json:"received"`
	Entries struct {
		Count int         `json:"count"`
		In    store.Money `json:"in"`
		Out   store.Money `json:"out"`
	} `json:"entries"`
	StatementLines int `json:"statement_lines"`
	Result         struct {
		Accrual store.Money `json:"accrual"`
		Cash    store.Money `json:"cash"`
	} `json:"result"`
	Files []string `json:"files"`
}

// IssuedCount is the month's invoices of a kind: how many of each status
// and what the authorized ones (still valid) total.
type IssuedCount struct {
	Kind       string      `json:"kind"`
	Authorized int         `json:"authorized"`
	Cancelled  int         `json:"cancelled"`
	Denied     int         `json:"denied"`
	Total      store.Money `json:"authorized_total"`
}

// vNF is an NF-e's or NFC-e's total as the note states it.
var vNF = regexp.MustCompile(`<vNF>([0-9.]+)</vNF>`)

// Package is the accountant's package of a unit's month (first, its first
// day) as a ZIP: every invoice the unit issued (the authority's document,
// its events, its DANFE), every NF-e it received, the entries due in the
// month, the statement lines posted in it, the issued notes (their
// values and taxes) and the DRE on both bases as XLSX, and a manifest of
// counts and totals.
func Package(ctx context.Context, db *store.DB, inv *invoicing.Service, unit store.Unit, first store.Date) ([]byte, Manifest, error) {
	last := store.Date{Time: first.AddDate(0, 1, -1)}
	month := first.Format("2006-01")
	m := Manifest{Unit: unit.Name, CNPJ: unit.CNPJ, Month: month, Made: db.Now().In(time.UTC).Format(time.RFC3339)}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	write := func(name string, data []byte) error {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: db.Now()})
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	add := func(name string, data []byte) error {
		m.Files = append(m.Files, name)
		return write(name, data)
	}
	table := func(name string, t render.Table) error {
		var b bytes.Buffer
		if err := t.WriteXLSX(&b); err != nil {
			return err
		}
		return add(name, b.Bytes())
	}

	issued, err := db.IssuedInvoices(ctx, unit.ID, first, last)
	if err != nil {
		return nil, m, err
	}
	notes, err := NotesTable("Notas emitidas "+month, issued)
	if err != nil {
		return nil, m, err
	}
	if err := table("notas-emitidas-"+month+".xlsx", notes); err != nil {
		return nil, m, err
	}
	counts := map[string]*IssuedCount{}
	for _, n := range issued {
		c := counts[n.Kind]
		if c == nil {
			c = &IssuedCount{Kind: n.Kind}
			counts[n.Kind] = c
		}
		dir, base := "notas-emitidas/"+n.Kind+"/", invoicing.FileName(n.Invoice)
		if err := add(dir+base+".xml", []byte(n.XML)); err != nil {
			return nil, m, err
		}
		if n.AccessKey.Valid {
			events, err := db.InvoiceEvents(ctx, unit.ID, n.AccessKey.String)
			if err != nil {
				return nil, m, err
			}
			for _, e := range events {
				if err := add(dir+base+"-evento-"+e.Type+"-"+strconv.Itoa(e.Sequence)+".xml", []byte(e.XML)); err != nil {
					return nil, m, err
				}
			}
		}
		switch n.Status {
		case store.InvoiceCancelled:
			c.Cancelled++
		case store.InvoiceDenied:
			c.Denied++
			continue
		default:
			c.Authorized++
		}
		d, err := db.InvoiceData(ctx, unit.ID, n.OrderToken)
		if err != nil {
			return nil, m, err
		}
		if n.Status != store.InvoiceCancelled {
			total := invoicing.Document(d).Total
			if v := vNF.FindStringSubmatch(n.XML); v != nil {
				total, _ = decimal.NewFromString(v[1])
			}
			c.Total = store.NewMoney(c.Total.Add(total))
		}
		if invoicing.HasDANFE(n.Invoice) {
			pdf, err := inv.DANFEPDF(ctx, db, n.Invoice, d)
			if err != nil {
				return nil, m, fmt.Errorf("the DANFE of %s: %w", base, err)
			}
			if err := add(dir+base+".pdf", pdf); err != nil {
				return nil, m, err
			}
		}
	}
	for _, k := range []string{"nfe", "nfce", "nfse", "nfsen"} {
		if c := counts[k]; c != nil {
			m.Issued = append(m.Issued, *c)
		}
	}

	received, err := db.ReceivedNotes(ctx, unit.ID, first.ISO(), last.ISO())
	if err != nil {
		return nil, m, err
	}
	for _, n := range received {
		if err := add("notas-recebidas/"+n.AccessKey+".xml", []byte(n.XML)); err != nil {
			return nil, m, err
		}
		m.Received.Count++
		m.Received.Total = store.NewMoney(m.Received.Total.Add(n.Total.Decimal))
	}

	entries, err := db.EntrySummaries(ctx, unit.ID, first.ISO(), last.ISO(), "", 1_000_000)
	if err != nil {
		return nil, m, err
	}
	m.Entries.Count = len(entries)
	for _, e := range entries {
		if e.Type == "in" {
			m.Entries.In = store.NewMoney(m.Entries.In.Add(e.Value.Decimal))
		} else {
			m.Entries.Out = store.NewMoney(m.Entries.Out.Add(e.Value.Decimal))
		}
	}
	if err := table("lancamentos-"+month+".xlsx", EntriesTable("Lançamentos "+month, entries)); err != nil {
		return nil, m, err
	}
	posted, err := db.PostedStatementLines(ctx, unit.ID, first.ISO(), last.ISO())
	if err != nil {
		return nil, m, err
	}
	m.StatementLines = len(posted)
	accounts, err := UnitAccounts(ctx, db, unit.ID)
	if err != nil {
		return nil, m, err
	}
	if err := table("extrato-"+month+".xlsx", StatementTable("Extrato "+month, posted, accounts)); err != nil {
		return nil, m, err
	}
	for _, basis := range []string{store.BasisAccrual, store.BasisCash} {
		d, err := Compute(ctx, db, []int64{unit.ID}, first, last, basis)
		if err != nil {
			return nil, m, err
		}
		name := map[string]string{store.BasisAccrual: "competencia", store.BasisCash: "caixa"}[basis]
		if err := table("dre-"+name+"-"+month+".xlsx", DRETable(d)); err != nil {
			return nil, m, err
		}
		for _, l := range d.Lines {
			if l.Key == "resultado_liquido" && basis == store.BasisAccrual {
				m.Result.Accrual = l.Amount
			} else if l.Key == "resultado_liquido" {
				m.Result.Cash = l.Amount
			}
		}
	}

	m.Files = append(m.Files, "manifesto.txt", "manifest.json")
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, m, err
	}
	if err := write("manifesto.txt", []byte(m.Text())); err != nil {
		return nil, m, err
	}
	if err := write("manifest.json", js); err != nil {
		return nil, m, err
	}
	if err := z.Close(); err != nil {
		return nil, m, err
	}
	return buf.Bytes(), m, nil
}

// kindNames name the kinds of invoice in the manifest.
var kindNames = map[string]string{"nfe": "NF-e", "nfce": "NFC-e", "nfse": "NFS-e municipal", "nfsen": "NFS-e nacional"}

// countOf says n things in Portuguese, singular or plural: "1
// autorizada", "2 autorizadas", "0 autorizadas".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Text is the manifest in Portuguese, for the accountant to read.
func (m Manifest) Text() string {
	var b strings.Builder
	brl := func(v store.Money) string { return render.BRL(v.StringFixed(2)) }
	fmt.Fprintf(&b, "Pacote do contador · %s · CNPJ %s · %s\r\n\r\n", m.Unit, m.CNPJ, m.Month)
	b.WriteString("Notas emitidas (XML autorizado, eventos e DANFE em notas-emitidas/):\r\n")
	if len(m.Issued) == 0 {
		b.WriteString("  nenhuma\r\n")
	}
	for _, c := range m.Issued {
		fmt.Fprintf(&b, "  %s: %s (total %s), %s, %s\r\n", kindNames[c.Kind], countOf(c.Authorized, "autorizada", "autorizadas"), brl(c.Total),
			countOf(c.Cancelled, "cancelada", "canceladas"), countOf(c.Denied, "denegada", "denegadas"))
	}
	fmt.Fprintf(&b, "Notas recebidas (notas-recebidas/): %d, total %s\r\n", m.Received.Count, brl(m.Received.Total))
	fmt.Fprintf(&b, "Lançamentos com vencimento no mês (lancamentos-%s.xlsx): %d; receitas %s, despesas %s\r\n", m.Month, m.Entries.Count, brl(m.Entries.In), brl(m.Entries.Out))
	fmt.Fprintf(&b, "Linhas de extrato do mês (extrato-%s.xlsx): %d\r\n", m.Month, m.StatementLines)
	fmt.Fprintf(&b, "Resultado líquido do mês (dre-competencia-%s.xlsx, dre-caixa-%s.xlsx): competência %s, caixa %s\r\n", m.Month, m.Month, brl(m.Result.Accrual), brl(m.Result.Cash))
	fmt.Fprintf(&b, "\r\nArquivos (%d):\r\n", len(m.Files))
	for _, f := range m.Files {
		b.WriteString("  " + f + "\r\n")
	}
	return b.String()
}

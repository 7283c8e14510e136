// Package reform holds the tax reform's data (LC 214/2025, NT
// 2025.002-RTC): the IBS and CBS rates of each year, which tax regimes
// state them from when, and the classifications (CST and cClassTrib) an
// invoice item is taxed by. It is data, not code: the table ships
// embedded (data/ibscbs.json) and an operator adds a year's rates or
// classes with a file of the same shape (serve --ibscbs-table), since the
// authorities publish them as the transition goes.
package reform

import (
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

//go:embed data/ibscbs.json
var data embed.FS

// Rates are the IBS and CBS rates in force from From to Until (dates
// YYYY-MM-DD, inclusive), in percent.
type Rates struct {
	From   string          `json:"from"`
	Until  string          `json:"until"`
	CBS    decimal.Decimal `json:"cbs"`
	IBSUF  decimal.Decimal `json:"ibs_uf"`
	IBSMun decimal.Decimal `json:"ibs_mun"`
}

// Regime says from when the issuers of some tax regimes (CRT) state IBS
// and CBS.
type Regime struct {
	CRT  []int  `json:"crt"`
	From string `json:"from"`
}

// CST is a situation code of IBS and CBS; Taxed says whether an item of it
// carries the rates and values (gIBSCBS) or only its codes (an immunity).
type CST struct {
	Name  string `json:"name"`
	Taxed bool   `json:"taxed"`
}

// Class is a cClassTrib: its CST is its first three digits. RedIBS and
// RedCBS are its rate reductions (gRed, percent), Deferral the share of
// the tax deferred (gDif, percent), CredPres the presumed credit the
// issuer takes (gIBSCredPres, gCBSCredPres); Documents are the documents
// it may go on: nfe, nfce, nfse.
type Class struct {
	Code      string          `json:"code"`
	Name      string          `json:"name"`
	RedIBS    decimal.Decimal `json:"red_ibs"`
	RedCBS    decimal.Decimal `json:"red_cbs"`
	Deferral  decimal.Decimal `json:"deferral"`
	CredPres  *CredPres       `json:"cred_pres,omitempty"`
	Documents []string        `json:"documents"`
}

// CredPres is a presumed credit: its code (cCredPres, 2 digits) and its
// percentages of the IBS and CBS base.
type CredPres struct {
	Code string          `json:"code"`
	IBS  decimal.Decimal `json:"ibs"`
	CBS  decimal.Decimal `json:"cbs"`
}

// CST is the class's situation code.
func (c Class) CST() string { return c.Code[:3] }

// Table is the reform's data. It is read once, at start-up; afterwards it
// is only read.
type Table struct {
	rates   []Rates
	regimes []Regime
	csts    map[string]CST
	classes map[string]Class
}

type file struct {
	Rates   []Rates         `json:"rates"`
	Regimes []Regime        `json:"regimes"`
	CSTs    map[string]CST  `json:"csts"`
	Classes []Class         `json:"classes"`
	Source  json.RawMessage `json:"source"`
}

// Load answers the shipped table.
func Load() (*Table, error) {
	b, err := data.ReadFile("data/ibscbs.json")
	if err != nil {
		return nil, err
	}
	t := &Table{csts: map[string]CST{}, classes: map[string]Class{}}
	if err := t.Override(b); err != nil {
		return nil, fmt.Errorf("shipped table: %w", err)
	}
	return t, nil
}

// The defaults an item takes when its product names no class: full
// taxation, and on an export its immunity.
const (
	DefaultClass = "000001"
	ExportClass  = "410004"
)

var (
	digits2 = regexp.MustCompile(`^\d{2}$`)
	digits3 = regexp.MustCompile(`^\d{3}$`)
	digits6 = regexp.MustCompile(`^\d{6}$`)
	day     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// Override adds a file's rates, regimes, CSTs and classes to the table: a
// year's rates replace those of the years they overlap, a regime's CRT
// takes the file's date, a class or CST replaces the one of its code. The
// table is unchanged when the file is refused.
func (t *Table) Override(b []byte) error {
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("ibscbs table: %w", err)
	}
	next := Table{rates: slices.Clone(t.rates), regimes: slices.Clone(t.regimes), csts: map[string]CST{}, classes: map[string]Class{}}
	for k, v := range t.csts {
		next.csts[k] = v
	}
	for k, v := range t.classes {
		next.classes[k] = v
	}
	for code, c := range f.CSTs {
		if !digits3.MatchString(code) || c.Name == "" {
			return fmt.Errorf("ibscbs table: CST %q: a CST is 3 digits with its name", code)
		}
		next.csts[code] = c
	}
	percent := func(d decimal.Decimal) bool {
		return !d.IsNegative() && d.LessThanOrEqual(decimal.NewFromInt(100)) && d.Exponent() >= -4
	}
	for _, r := range f.Rates {
		from, err1 := time.Parse(time.DateOnly, r.From)
		until, err2 := time.Parse(time.DateOnly, r.Until)
		if !day.MatchString(r.From) || !day.MatchString(r.Until) || err1 != nil || err2 != nil || until.Before(from) {
			return fmt.Errorf("ibscbs table: rates from %q until %q: the dates are YYYY-MM-DD, from before until", r.From, r.Until)
		}
		if !percent(r.CBS) || !percent(r.IBSUF) || !percent(r.IBSMun) {
			return fmt.Errorf("ibscbs table: rates from %s: each rate is a percentage from 0 to 100 with at most 4 decimals", r.From)
		}
		next.rates = slices.DeleteFunc(next.rates, func(o Rates) bool { return o.From <= r.Until && r.From <= o.Until })
		next.rates = append(next.rates, r)
	}
	sort.Slice(next.rates, func(i, j int) bool { return next.rates[i].From < next.rates[j].From })
	for _, g := range f.Regimes {
		if _, err := time.Parse(time.DateOnly, g.From); err != nil || len(g.CRT) == 0 {
			return fmt.Errorf("ibscbs table: regime %v: it names its CRTs and its date (YYYY-MM-DD)", g.CRT)
		}
		for i := range next.regimes {
			next.regimes[i].CRT = slices.DeleteFunc(slices.Clone(next.regimes[i].CRT), func(c int) bool { return slices.Contains(g.CRT, c) })
		}
		next.regimes = append(next.regimes, g)
	}
	for _, c := range f.Classes {
		if !digits6.MatchString(c.Code) {
			return fmt.Errorf("ibscbs table: class %q: a cClassTrib is 6 digits", c.Code)
		}
		if _, ok := next.csts[c.CST()]; !ok {
			return fmt.Errorf("ibscbs table: class %s: its CST %s is not in the table", c.Code, c.CST())
		}
		if !percent(c.RedIBS) || !percent(c.RedCBS) || !percent(c.Deferral) {
			return fmt.Errorf("ibscbs table: class %s: a reduction or deferral is a percentage from 0 to 100 with at most 4 decimals", c.Code)
		}
		if p := c.CredPres; p != nil && (!digits2.MatchString(p.Code) || !percent(p.IBS) || !percent(p.CBS)) {
			return fmt.Errorf("ibscbs table: class %s: a presumed credit has its 2-digit code and percentages", c.Code)
		}
		for _, d := range c.Documents {
			if d != "nfe" && d != "nfce" && d != "nfse" {
				return fmt.Errorf("ibscbs table: class %s: document %q is none of nfe, nfce, nfse", c.Code, d)
			}
		}
		next.classes[c.Code] = c
	}
	*t = next
	return nil
}

// RatesOn answers the rates in force on a day (YYYY-MM-DD).
func (t *Table) RatesOn(day string) (Rates, bool) {
	for _, r := range t.rates {
		if r.From <= day && day <= r.Until {
			return r, true
		}
	}
	return Rates{}, false
}

// Warning says, on a day (YYYY-MM-DD), that the rates end within 31
// days, or have ended: from the day after the last, no issuer that states
// IBS and CBS issues until an operator gives the next year's; "" when
// they do not end so soon.
func (t *Table) Warning(day string) string {
	if len(t.rates) == 0 {
		return "the IBS and CBS table has no rates: give them with serve --ibscbs-table"
	}
	last := t.rates[len(t.rates)-1].Until
	end, err1 := time.Parse(time.DateOnly, last)
	now, err2 := time.Parse(time.DateOnly, day)
	if err1 != nil || err2 != nil || end.Sub(now) > 31*24*time.Hour {
		return ""
	}
	return "the IBS and CBS rates fincom has end on " + last + ": from the day after, no note that states them is issued until " +
		"the next period's published rates are given with serve --ibscbs-table"
}

// States reports whether an issuer of tax regime crt states IBS and CBS on
// a day (YYYY-MM-DD).
func (t *Table) States(crt int, day string) bool {
	for _, g := range t.regimes {
		if slices.Contains(g.CRT, crt) && g.From <= day {
			return true
		}
	}
	return false
}

// Class answers a cClassTrib and its CST.
func (t *Table) Class(code string) (Class, CST, bool) {
	c, ok := t.classes[code]
	if !ok {
		return Class{}, CST{}, false
	}
	return c, t.csts[c.CST()], true
}

// Check says what is wrong with a product's or service's CST and class
// (each may be empty: the default's), and a service's operation
// indicator (cIndOp), for kind "product" or "service": the field at fault
// and why, or "" when they are right.
func (t *Table) Check(kind, cst, class, operation string) (field, msg string) {
	switch {
	case operation != "" && kind != "service":
		return "ibs_cbs_operation", "ibs_cbs_operation (the national NFS-e's cIndOp) is a service's"
	case operation != "" && !digits6.MatchString(operation):
		return "ibs_cbs_operation", "ibs_cbs_operation is the operation indicator (cIndOp), 6 digits"
	}
	if cst != "" {
		if !digits3.MatchString(cst) {
			return "ibs_cbs_cst", "ibs_cbs_cst is the IBS and CBS situation code, 3 digits"
		}
		if _, ok := t.csts[cst]; !ok {
			return "ibs_cbs_cst", "ibs_cbs_cst " + cst + " is not a CST fincom knows (" + t.cstList() + ")"
		}
	}
	if class == "" {
		if cst != "" && cst != DefaultClass[:3] {
			return "ibs_cbs_class", "ibs_cbs_cst " + cst + " needs its ibs_cbs_class (cClassTrib)"
		}
		return "", ""
	}
	if !digits6.MatchString(class) {
		return "ibs_cbs_class", "ibs_cbs_class is the cClassTrib, 6 digits"
	}
	c, _, ok := t.Class(class)
	if !ok {
		return "ibs_cbs_class", "ibs_cbs_class " + class + " is not in the cClassTrib table (serve --ibscbs-table adds classes)"
	}
	if cst != "" && c.CST() != cst {
		return "ibs_cbs_class", "ibs_cbs_class " + class + " belongs to CST " + c.CST() + ", not " + cst
	}
	docs := map[string][]string{"product": {"nfe", "nfce"}, "service": {"nfse"}}[kind]
	if len(docs) > 0 && !slices.ContainsFunc(docs, func(d string) bool { return slices.Contains(c.Documents, d) }) {
		return "ibs_cbs_class", "ibs_cbs_class " + class + " does not apply to a " + kind
	}
	return "", ""
}

func (t *Table) cstList() string {
	var l []string
	for k := range t.csts {
		l = append(l, k)
	}
	sort.Strings(l)
	return strings.Join(l, ", ")
}

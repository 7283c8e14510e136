package bank

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// published is one field of a bank's manual (testdata/manuals/*.tsv).
type published struct {
	start, end int
	num        bool
	desc       string
}

func readManual(t *testing.T, name string) map[string][]published {
	t.Helper()
	f, err := os.Open("testdata/manuals/" + name + ".tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]published{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "record\t") {
			continue
		}
		p := strings.Split(l, "\t")
		s, _ := strconv.Atoi(p[1])
		e, _ := strconv.Atoi(p[2])
		out[p[0]] = append(out[p[0]], published{s, e, p[3] == "9", p[4]})
	}
	return out
}

// kindExceptions are the fields whose kind fincom writes otherwise than
// the manual prints it, and why.
var kindExceptions = map[string]string{
	// Bradesco's boleto manual: the our-number's digit is P when the
	// remainder is 1, so it cannot be numeric.
	"237 P our_dv": "digit may be P",
	// A prazo of days written as digits fills the alphanumeric field.
	"237 P writeoff_days": "digits in an alphanumeric field",
	// Itaú prints the fine's date and value as X; its note 31 fills them
	// with digits (DDMMAAAA, a value with two decimals).
	"341 R fine_date": "digits, note 31", "341 R fine": "digits, note 31",
	// The fine code's values are digits.
	"237 R fine_code": "digits in an alphanumeric field",
	// Reason codes are read as text (two characters each).
	"033 T reasons": "read as text", "237 T reasons": "read as text", "341 T reasons": "read as text",
	"341 T liquidation": "read as text",
}

// TestLayoutsMatchManuals holds every record of each bank's layout to the
// position table its manual publishes: a remittance field starts and
// ends where a published field does and has its kind (a filler may span
// several published fillers); a field fincom reads from a return lies
// within one published field.
func TestLayoutsMatchManuals(t *testing.T) {
	for name, b := range map[string]*Bank{"itau": itau, "bradesco": bradesco, "santander": santander} {
		manual := readManual(t, name)
		records := b.records()
		records["T"], records["U"] = b.layout.t, b.layout.u
		for rec, r := range records {
			pub := manual[rec]
			if len(pub) == 0 {
				t.Errorf("%s: the manual has no %s", name, rec)
				continue
			}
			starts, ends := map[int]bool{}, map[int]bool{}
			for _, p := range pub {
				starts[p.start], ends[p.end] = true, true
			}
			read := rec == "T" || rec == "U"
			for _, f := range r.fields {
				if read {
					ok := false
					for _, p := range pub {
						if f.start >= p.start && f.end <= p.end {
							ok = true
						}
					}
					if !ok {
						t.Errorf("%s %s: %s (%d-%d) crosses the manual's fields", name, rec, f.name, f.start, f.end)
					}
					continue
				}
				if !starts[f.start] || !ends[f.end] {
					t.Errorf("%s %s: %s (%d-%d) does not start and end where the manual's fields do", name, rec, f.name, f.start, f.end)
					continue
				}
				if f.name == "-" {
					continue
				}
				for _, p := range pub {
					if p.start == f.start && p.end == f.end && p.num != f.num && kindExceptions[b.Code+" "+rec+" "+f.name] == "" {
						t.Errorf("%s %s: %s (%d-%d) is numeric %v, the manual's %q numeric %v", name, rec, f.name, f.start, f.end, f.num, p.desc, p.num)
					}
				}
			}
		}
	}
}

// records lists a layout's remittance records by name, for the position
// tests.
func (b *Bank) records() map[string]record {
	l := b.layout
	return map[string]record{"file_header": l.fileHeader, "batch_header": l.batchHeader, "P": l.p, "Q": l.q, "R": l.r,
		"batch_trailer": l.batchTrailer, "file_trailer": l.fileTrailer}
}

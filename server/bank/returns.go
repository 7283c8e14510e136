package bank

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// What a return line did to its title.
const (
	EventRegistered = "registered"
	EventPaid       = "paid"
	EventRejected   = "rejected"
	EventWrittenOff = "written_off"
	EventOther      = "other"
)

// Reason is a bank's reason code with its text.
type Reason struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Event is one title's movement in a return file: its segments T and U.
type Event struct {
	Line         int             `json:"line"` // of segment T
	Event        string          `json:"event" enum:"registered,paid,rejected,written_off,other"`
	Movement     string          `json:"movement"`
	MovementText string          `json:"movement_text"`
	OurNumber    string          `json:"our_number"`
	Document     string          `json:"document"`
	Amount       decimal.Decimal `json:"-"`
	Paid         decimal.Decimal `json:"-"`
	Net          decimal.Decimal `json:"-"`
	Fee          decimal.Decimal `json:"-"`
	Occurred     string          `json:"occurred,omitempty"` // YYYY-MM-DD
	Credited     string          `json:"credited,omitempty"`
	Reasons      []Reason        `json:"reasons,omitempty"`
}

// Return is a parsed return file.
type Return struct {
	Sequence string
	Created  string
	Events   []Event
	// header holds the file header's identity fields as the file has them
	// (Foreign compares them with an agreement).
	header map[string]string
}

// identity are the file header's fields that say whose file it is: the
// beneficiary's CNPJ, agency, account and the bank's agreement or
// transmission code, as each bank's layout has them.
var identity = []string{"inscription", "agency", "agency_dv", "account", "account_dv", "account_dac", "agreement", "transmission"}

// Foreign answers the identity fields of the return's header that are not
// the agreement's (a.CNPJ is the unit's): a file another company received
// from the bank, whose our-numbers may well be ours too. Numbers are
// compared without their leading zeros, codes without padding. Nothing of
// a foreign file is applied (TestReturnOfAnotherCompany).
func (b *Bank) Foreign(r Return, a Agreement) []string {
	want := headerValues(a, 0, time.Time{})
	bare := func(v string) string { return strings.TrimLeft(strings.TrimSpace(v), "0") }
	var out []string
	for _, name := range identity {
		if _, ok := b.layout.fileHeader.byName[name]; ok && bare(r.header[name]) != bare(want[name]) {
			out = append(out, name)
		}
	}
	return out
}

// ParseError is a malformed return file: the line and column at fault.
type ParseError struct {
	Line, Column int
	Msg          string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

func parseDate(s string) (string, bool) {
	if strings.Trim(s, "0") == "" {
		return "", true
	}
	t, err := time.Parse("02012006", s)
	if err != nil {
		return "", false
	}
	return t.Format("2006-01-02"), true
}

// ParseReturn reads a CNAB 240 return file of the bank. A file that is not
// one (a line not 240 columns, another bank's, a remittance, a segment T
// without its U, a non-numeric amount or date, no trailer) is refused
// whole, with the line and column at fault.
func (b *Bank) ParseReturn(data []byte) (Return, error) {
	l := b.layout
	for _, r := range []record{l.fileHeader, l.t, l.u} {
		if r.err != nil {
			return Return{}, r.err
		}
	}
	data = bytes.TrimRight(data, "\r\n\x1a")
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out Return
	errAt := func(n, col int, format string, args ...any) error {
		return &ParseError{Line: n, Column: col, Msg: fmt.Sprintf(format, args...)}
	}
	num := func(n int, rec record, line, name string) (string, error) {
		f := rec.byName[name]
		v := line[f.start-1 : f.end]
		for i := 0; i < len(v); i++ {
			if v[i] < '0' || v[i] > '9' {
				return "", errAt(n, f.start+i, "%s (columns %d-%d) must be digits, found %q", name, f.start, f.end, v)
			}
		}
		return v, nil
	}
	money := func(n int, rec record, line, name string) (decimal.Decimal, error) {
		v, err := num(n, rec, line, name)
		if err != nil {
			return decimal.Zero, err
		}
		d, _ := decimal.NewFromString(v)
		return d.Shift(-2), nil
	}
	date := func(n int, rec record, line, name string) (string, error) {
		v, err := num(n, rec, line, name)
		if err != nil {
			return "", err
		}
		d, ok := parseDate(v)
		if !ok {
			return "", errAt(n, rec.byName[name].start, "%s %q is not a date (DDMMAAAA)", name, v)
		}
		return d, nil
	}
	var pending *Event
	trailer := false
	for i, line := range lines {
		n := i + 1
		if len(line) != 240 {
			return out, errAt(n, min(len(line), 240)+1, "a CNAB 240 record has 240 columns, this one %d", len(line))
		}
		if trailer {
			return out, errAt(n, 1, "record after the file trailer")
		}
		if line[:3] != b.Code {
			return out, errAt(n, 1, "bank %q: this is not a %s (%s) file", line[:3], b.Name, b.Code)
		}
		switch kind := line[7]; {
		case n == 1 && kind != '0':
			return out, errAt(n, 8, "the first record must be the file header (type 0)")
		case kind == '0':
			if n != 1 {
				return out, errAt(n, 8, "a second file header")
			}
			if line[142] != '2' {
				return out, errAt(n, 143, "not a return file (column 143 is %q, a return has 2)", line[142:143])
			}
			out.Sequence = strings.TrimLeft(line[157:163], "0")
			out.Created, _ = parseDate(line[143:151])
			out.header = map[string]string{}
			for _, name := range identity {
				if _, ok := l.fileHeader.byName[name]; ok {
					out.header[name] = l.fileHeader.get(line, name)
				}
			}
		case kind == '1' || kind == '5':
		case kind == '9':
			trailer = true
		case kind == '3':
			seg := line[13]
			switch seg {
			case 'T':
				if pending != nil {
					return out, errAt(n, 14, "segment T of line %d has no segment U", pending.Line)
				}
				e := Event{Line: n}
				e.Movement = l.t.get(line, "movement")
				if _, err := num(n, l.t, line, "movement"); err != nil {
					return out, err
				}
				nn := l.ourNumberInT(line)
				for j := 0; j < len(nn); j++ {
					if nn[j] < '0' || nn[j] > '9' {
						return out, errAt(n, l.t.byName["our_number"].start+j, "the our-number must be digits, found %q", nn)
					}
				}
				e.OurNumber = nn
				e.Document = l.t.get(line, "document")
				var err error
				if e.Amount, err = money(n, l.t, line, "amount"); err != nil {
					return out, err
				}
				if e.Fee, err = money(n, l.t, line, "fee"); err != nil {
					return out, err
				}
				e.MovementText = l.movements[e.Movement]
				switch {
				case slices.Contains(l.registeredMovements, e.Movement):
					e.Event = EventRegistered
				case slices.Contains(l.rejectedMovements, e.Movement):
					e.Event = EventRejected
				case slices.Contains(l.paidMovements, e.Movement):
					e.Event = EventPaid
				case slices.Contains(l.writeoffMovements, e.Movement):
					e.Event = EventWrittenOff
				default:
					e.Event = EventOther
				}
				reasons := l.t.get(line, "reasons")
				if e.Event == EventRejected {
					for j := 0; j+2 <= len(reasons); j += 2 {
						c := reasons[j : j+2]
						if c == "00" || strings.TrimSpace(c) == "" {
							continue
						}
						e.Reasons = append(e.Reasons, Reason{Code: c, Text: l.rejections[c]})
					}
				}
				pending = &e
			case 'U':
				if pending == nil {
					return out, errAt(n, 14, "segment U without a segment T before it")
				}
				var err error
				if pending.Paid, err = money(n, l.u, line, "paid"); err != nil {
					return out, err
				}
				if pending.Net, err = money(n, l.u, line, "net"); err != nil {
					return out, err
				}
				if pending.Occurred, err = date(n, l.u, line, "occurred"); err != nil {
					return out, err
				}
				if pending.Credited, err = date(n, l.u, line, "credited"); err != nil {
					return out, err
				}
				out.Events = append(out.Events, *pending)
				pending = nil
			default:
				// Other segments (Y, W...) carry nothing fincom applies.
			}
		default:
			return out, errAt(n, 8, "unknown record type %q", string(kind))
		}
	}
	if pending != nil {
		return out, errAt(pending.Line, 14, "segment T has no segment U")
	}
	if !trailer {
		return out, errAt(len(lines), 8, "the file ends without its trailer (type 9)")
	}
	return out, nil
}

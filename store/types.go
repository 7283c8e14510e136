package store

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Money is an exact monetary amount. It is stored in SQLite as canonical
// decimal TEXT with two places and written to JSON as a string such as
// "12.50", the spec's format for monetary values.
type Money struct{ decimal.Decimal }

// NewMoney returns the Money for a decimal value.
func NewMoney(d decimal.Decimal) Money { return Money{d} }

// ParseMoney parses a decimal string such as "12.5" within the money
// range.
func ParseMoney(s string) (Money, error) {
	d, err := parseDecimal(s)
	if err == nil && !InMoneyRange(d) {
		return Money{}, ErrMoneyRange
	}
	return Money{d}, err
}

// String returns the amount with exactly two decimal places.
func (m Money) String() string { return string(appendFixed2(nil, m.Decimal)) }

// MarshalJSON writes "12.50".
func (m Money) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// AppendJSON appends "12.50" (listings write many: the answer encoder calls it).
func (m Money) AppendJSON(b []byte) []byte {
	return append(appendFixed2(append(b, '"'), m.Decimal), '"')
}

// appendFixed2 appends what d.StringFixed(2) returns: d rounded half away
// from zero to two places. Amounts whose cents fit an int64 (every amount
// fincom keeps) are done in integers, without StringFixed's big.Int
// arithmetic (BenchmarkListSalesOrders; FuzzMoneyString holds the two
// equal).
func appendFixed2(b []byte, d decimal.Decimal) []byte {
	exp, digits := int(d.Exponent()), d.NumDigits()
	if digits > 18 || exp < -18 || digits+exp+2 > 18 {
		return append(b, d.StringFixed(2)...)
	}
	c := d.CoefficientInt64()
	var cents int64
	if exp >= -2 {
		cents = c * pow10[exp+2]
	} else {
		p := pow10[-2-exp]
		cents = c / p
		if r := c % p; 2*r >= p {
			cents++
		} else if 2*r <= -p {
			cents--
		}
	}
	u := uint64(cents)
	if cents < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/100, 10)
	return append(b, '.', byte('0'+u%100/10), byte('0'+u%10))
}

// pow10[i] is 10^i.
var pow10 = [19]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// UnmarshalJSON accepts 12.5 and "12.5" within the money range
// (ErrMoneyRange otherwise).
func (m *Money) UnmarshalJSON(b []byte) error {
	d, err := moneyFromJSON(b)
	m.Decimal = d
	return err
}

// Cents answers the amount in whole cents, rounded half away from zero,
// as the integer columns that SQL sums use. Every Money fincom keeps is
// within ±MaxMoney, so it fits an int64 with room for the sum of millions
// (TestMoneyRange).
func (m Money) Cents() int64 { return m.Shift(2).Round(0).IntPart() }

// Value stores the canonical two-place text.
func (m Money) Value() (driver.Value, error) { return m.String(), nil }

// Scan reads the canonical text back.
func (m *Money) Scan(src any) error {
	d, err := scanDecimal(src)
	m.Decimal = d
	return err
}

// Number is an exact amount that the spec shows as a JSON number
// (`budget`, `opening_balance`). It is stored like Money.
type Number struct{ decimal.Decimal }

// MarshalJSON writes the value as a bare JSON number, without exponent.
// The value was parsed from a finite decimal, so it is always valid JSON.
func (n Number) MarshalJSON() ([]byte, error) { return n.AppendJSON(nil), nil }

// AppendJSON appends the bare number (the answer encoder calls it).
func (n Number) AppendJSON(b []byte) []byte { return append(b, n.Decimal.String()...) }

// UnmarshalJSON accepts 12.5 and "12.5" within the money range
// (ErrMoneyRange otherwise).
func (n *Number) UnmarshalJSON(b []byte) error {
	d, err := moneyFromJSON(b)
	n.Decimal = d
	return err
}

// Value stores the canonical two-place text.
func (n Number) Value() (driver.Value, error) { return n.Decimal.StringFixed(2), nil }

// Scan reads the canonical text back.
func (n *Number) Scan(src any) error {
	d, err := scanDecimal(src)
	n.Decimal = d
	return err
}

// MaxMoney is the largest amount fincom accepts, in either sign, for every
// money field: wide enough for any small firm, small enough that an amount
// in cents fits an int64 with room for sums of millions of entries, and
// that its text ("9999999999.99", 13 characters) fits the PIX BR Code's
// amount field (EMV tag 54, at most 13). TestMoneyRange holds it.
var MaxMoney = decimal.RequireFromString("9999999999.99")

// MaxQuantity is the largest quantity fincom accepts (products, stock).
var MaxQuantity = decimal.RequireFromString("999999999.999")

// InMoneyRange reports whether d is an amount fincom can keep.
func InMoneyRange(d decimal.Decimal) bool { return d.Abs().Cmp(MaxMoney) <= 0 }

func moneyFromJSON(b []byte) (decimal.Decimal, error) {
	d, err := decimalFromJSON(b)
	if err == nil && !InMoneyRange(d) {
		return decimal.Zero, ErrMoneyRange
	}
	return d, err
}

// maxDigits bounds the size of accepted decimals: far above any real amount,
// far below what would let a hostile number cost memory or time.
const maxDigits = 30

var errDecimal = errors.New("not a decimal number")

func decimalFromJSON(b []byte) (decimal.Decimal, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return decimal.Decimal{}, err
		}
		return parseDecimal(s)
	}
	return parseDecimal(string(b))
}

// parseDecimal accepts plain decimal notation only: no exponent, NaN or
// infinity, which a user typing an amount never means.
func parseDecimal(s string) (decimal.Decimal, error) {
	s = strings.TrimSpace(s)
	digits := 0
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case (c == '-' || c == '+') && i == 0:
		case c == '.':
		default:
			return decimal.Decimal{}, errDecimal
		}
	}
	if digits == 0 || digits > maxDigits {
		return decimal.Decimal{}, errDecimal
	}
	return decimal.NewFromString(s)
}

func scanDecimal(src any) (decimal.Decimal, error) {
	switch v := src.(type) {
	case string:
		return decimal.NewFromString(v)
	case []byte:
		return decimal.NewFromString(string(v))
	case int64:
		return decimal.NewFromInt(v), nil
	case nil:
		return decimal.Zero, nil
	}
	return decimal.Decimal{}, fmt.Errorf("scan decimal: unexpected %T", src)
}

// Date is a calendar day. It is stored as ISO 8601 (YYYY-MM-DD).
type Date struct{ time.Time }

// ParseDateBR parses the spec's display format DD/MM/YYYY.
func ParseDateBR(s string) (Date, error) {
	t, err := time.Parse("02/01/2006", strings.TrimSpace(s))
	return Date{t}, err
}

// ParseDateISO parses YYYY-MM-DD.
func ParseDateISO(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(s))
	return Date{t}, err
}

// FirstOfMonth is the first day of d's month.
func (d Date) FirstOfMonth() Date {
	return Date{Time: time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)}
}

// ISO is d as YYYY-MM-DD.
func (d Date) ISO() string { return d.Format(time.DateOnly) }

// BR returns DD/MM/YYYY.
func (d Date) BR() string { return d.Format("02/01/2006") }

// Value stores YYYY-MM-DD.
func (d Date) Value() (driver.Value, error) { return d.ISO(), nil }

// Scan reads YYYY-MM-DD.
func (d *Date) Scan(src any) error {
	s, ok := src.(string)
	if !ok {
		return fmt.Errorf("scan date: unexpected %T", src)
	}
	t, err := time.Parse(time.DateOnly, s)
	d.Time = t
	return err
}

// DateBR is a Date written to JSON as DD/MM/YYYY, as the spec shows
// `opening_balance_date`.
type DateBR struct{ Date }

// MarshalJSON writes "DD/MM/YYYY".
func (d DateBR) MarshalJSON() ([]byte, error) { return d.AppendJSON(nil), nil }

// AppendJSON appends "DD/MM/YYYY" (the answer encoder calls it).
func (d DateBR) AppendJSON(b []byte) []byte { return append(append(append(b, '"'), d.BR()...), '"') }

// UnmarshalJSON reads "DD/MM/YYYY".
func (d *DateBR) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseDateBR(s)
	d.Date = v
	return err
}

// Scan reads YYYY-MM-DD.
func (d *DateBR) Scan(src any) error { return d.Date.Scan(src) }

// Value stores YYYY-MM-DD.
func (d DateBR) Value() (driver.Value, error) { return d.Date.Value() }

// timestamp formats the one moment of a transaction for storage: UTC,
// RFC 3339 with milliseconds, which sorts as text.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Stamp is a moment fincom recorded (created, paid, sent, manifested…):
// stored in UTC with milliseconds (timestamp), answered in São Paulo time
// as RFC 3339 ("2026-11-22T09:00:00-03:00"), the one timestamp format of
// every answer; null when the moment has not come (TestOneTimestampFormat).
type Stamp struct{ Text }

// stampOf is the Stamp of t.
func stampOf(t time.Time) Stamp { return Stamp{NewText(t.In(saoPaulo).Format(time.RFC3339))} }

// Scan reads a stored timestamp.
func (s *Stamp) Scan(src any) error {
	if err := s.Text.Scan(src); err != nil || !s.Valid {
		return err
	}
	s.String = displayTimestamp(s.String)
	return nil
}

// Time is the moment; zero when null.
func (s Stamp) Time() time.Time {
	t, _ := time.Parse(time.RFC3339, s.String)
	return t
}

// Text is a nullable string written to JSON as a string or null. Empty text
// is stored as NULL throughout fincom.
type Text struct{ sql.NullString }

// NewText returns the Text for s; empty is null.
func NewText(s string) Text { return Text{nullString(s)} }

// Scan takes a text column. SQLite's strings are stored as they come, not
// through NullString's general conversion: a month's listing scans tens of
// thousands of them.
func (t *Text) Scan(src any) error {
	switch v := src.(type) {
	case string:
		t.String, t.Valid = v, true
		return nil
	case nil:
		t.String, t.Valid = "", false
		return nil
	}
	return t.NullString.Scan(src)
}

// MarshalJSON writes the string or null.
func (t Text) MarshalJSON() ([]byte, error) {
	if !t.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(t.String)
}

// UnmarshalJSON reads a string or null (a stored report read back).
func (t *Text) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Text{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = NewText(s)
	return nil
}

// NullableString answers the text and whether it has one (the answer
// encoder, render/jsonenc, writes it without going through MarshalJSON).
func (t Text) NullableString() (string, bool) { return t.String, t.Valid }

// Decimal is an exact quantity written to JSON as a decimal string without
// fixed places ("1", "2.5"), as the spec shows `quantity`.
type Decimal struct{ decimal.Decimal }

// MarshalJSON writes "2.5".
func (d Decimal) MarshalJSON() ([]byte, error) { return d.AppendJSON(nil), nil }

// AppendJSON appends "2.5" (the answer encoder calls it).
func (d Decimal) AppendJSON(b []byte) []byte {
	return append(append(append(b, '"'), d.Decimal.String()...), '"')
}

// UnmarshalJSON accepts 2.5 and "2.5" up to ±MaxQuantity
// (ErrQuantityRange otherwise).
func (d *Decimal) UnmarshalJSON(b []byte) error {
	v, err := decimalFromJSON(b)
	if err == nil && v.Abs().Cmp(MaxQuantity) > 0 {
		return ErrQuantityRange
	}
	d.Decimal = v
	return err
}

// Value stores the canonical text.
func (d Decimal) Value() (driver.Value, error) { return d.Decimal.String(), nil }

// Scan reads the canonical text back.
func (d *Decimal) Scan(src any) error {
	v, err := scanDecimal(src)
	d.Decimal = v
	return err
}

package bank

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// ReturnItem is one title's movement a bank reports.
type ReturnItem struct {
	Movement string // 02 registered, 03 rejected, 06 paid, 09 written off...
	Our      OurNumber
	Document string
	Due      time.Time
	Amount   decimal.Decimal
	Paid     decimal.Decimal
	Fee      decimal.Decimal
	Occurred time.Time
	Credited time.Time
	Reasons  string // rejection codes, two digits each
}

// ReturnFile writes a CNAB 240 return file as the bank sends it: file
// header (direction 2), one batch of segments T and U, trailers. fincom
// reads banks' files; it writes one only as test mode's simulated bank
// does, and for its tests.
func (b *Bank) ReturnFile(a Agreement, seq int, created time.Time, items []ReturnItem) ([]byte, error) {
	l := b.layout
	common := headerValues(a, seq, created)
	common["direction"], common["operation"], common["firm_reserved"] = "2", "T", "RETORNO-PRODUCAO"
	var out []string
	add := func(r record, vals map[string]string) error {
		m := map[string]string{}
		for k, v := range common {
			m[k] = v
		}
		for k, v := range vals {
			m[k] = v
		}
		line, err := r.format(m)
		out = append(out, line)
		return err
	}
	if err := add(l.fileHeader, map[string]string{"batch": ""}); err != nil {
		return nil, err
	}
	if err := add(l.batchHeader, nil); err != nil {
		return nil, err
	}
	n := 0
	for _, it := range items {
		our := b.ourInFile(it.Our)
		n++
		if err := add(l.t, map[string]string{"seq": strconv.Itoa(n), "movement": it.Movement, "wallet": a.Wallet, "our_number": our,
			"our_dv": it.Our.DV, "document": it.Document, "due": ddmmyyyy(it.Due), "amount": cents(it.Amount), "fee": cents(it.Fee),
			"reasons": it.Reasons}); err != nil {
			return nil, err
		}
		n++
		if err := add(l.u, map[string]string{"seq": strconv.Itoa(n), "movement": it.Movement, "paid": cents(it.Paid),
			"net": cents(it.Paid.Sub(it.Fee)), "occurred": ddmmyyyy(it.Occurred), "credited": ddmmyyyy(it.Credited)}); err != nil {
			return nil, err
		}
	}
	if err := add(l.batchTrailer, map[string]string{"records": strconv.Itoa(n + 2)}); err != nil {
		return nil, err
	}
	if err := add(l.fileTrailer, map[string]string{"batch": "", "batches": "1", "records": strconv.Itoa(len(out) + 1)}); err != nil {
		return nil, err
	}
	return []byte(strings.Join(out, "\r\n") + "\r\n"), nil
}

// Remitted reads the titles of a remittance file as the bank does: each
// segment P's movement and our-number. The simulated bank answers a
// remittance with it; the tests do too.
func (b *Bank) Remitted(data []byte) (movements []string, ours []OurNumber) {
	p := b.layout.p
	for _, line := range strings.Split(strings.TrimRight(string(data), "\r\n"), "\r\n") {
		if len(line) != 240 || line[7] != '3' || line[13] != 'P' {
			continue
		}
		o := OurNumber{Number: p.get(line, "our_number"), DV: p.get(line, "our_dv")}
		if b.fromFile != nil {
			o = b.fromFile(p.get(line, "our_number"))
		}
		movements, ours = append(movements, p.get(line, "movement")), append(ours, o)
	}
	return movements, ours
}

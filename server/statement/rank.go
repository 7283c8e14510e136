package statement

import (
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	"fincom/store"
)

// Candidate is what a statement line may be paired with: an open entry
// or charge, its signed amount (an income or a charge positive, an
// expense negative) and its due day.
type Candidate struct {
	Value, Label string
	Amount       decimal.Decimal
	Due          time.Time
	// Names are who and what it is (the customer's or supplier's name,
	// the description), matched against the line's memo.
	Names string
}

// Rank answers the candidates a line of amount (signed as the bank
// writes it) posted on day with memo may be paired with, best first: only
// those of its direction (a debit is never offered an income), the exact
// amount first, then the closest amounts; among equal amounts the one
// whose names share most words with the memo (a PIX's memo names its
// payer), then the closest due days, then by label (TestRank).
func Rank(amount decimal.Decimal, day time.Time, memo string, cs []Candidate) []Candidate {
	out := make([]Candidate, 0, len(cs))
	for _, c := range cs {
		if c.Amount.Sign() == amount.Sign() && !amount.IsZero() {
			out = append(out, c)
		}
	}
	days := func(t time.Time) float64 {
		d := t.Sub(day).Hours()
		if d < 0 {
			d = -d
		}
		return d
	}
	said := words(memo)
	shared := make(map[string]int, len(out))
	for _, c := range out {
		for w := range words(c.Names) {
			if said[w] {
				shared[c.Value]++
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := out[i].Amount.Sub(amount).Abs(), out[j].Amount.Sub(amount).Abs()
		if c := di.Cmp(dj); c != 0 {
			return c < 0
		}
		if a, b := shared[out[i].Value], shared[out[j].Value]; a != b {
			return a > b
		}
		if a, b := days(out[i].Due), days(out[j].Due); a != b {
			return a < b
		}
		return out[i].Label < out[j].Label
	})
	return out
}

// bankWords are the words banks write in every memo: they name nobody.
var bankWords = map[string]bool{"pix": true, "ted": true, "doc": true, "recebido": true, "recebida": true, "enviado": true, "enviada": true,
	"pagamento": true, "pagto": true, "transf": true, "transferencia": true, "deposito": true, "credito": true, "debito": true, "boleto": true,
	"ltda": true, "eireli": true, "para": true, "dos": true, "das": true, "com": true}

// words are the folded words of s of three letters or more that name
// something (bankWords aside).
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(store.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 && !bankWords[w] {
			out[w] = true
		}
	}
	return out
}

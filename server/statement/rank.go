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
	// Contact is whose it is ("" nobody's): a line may pay several of one
	// contact's items at once.
	Contact string
	// Owed is what it asks on a day, signed (nil: Amount): a late
	// charge's fine and interest added by its own terms.
	Owed func(day time.Time) decimal.Decimal
}

// Ranked is a pairing offered for a line: one candidate, or several
// (Items) whose sum is the line's.
type Ranked struct {
	Candidate
	// Asks is what it asks on the line's day (Items: their sum).
	Asks decimal.Decimal
	// Items are the candidates a sum pays (nil: one).
	Items []Candidate
	// Accepted: reconciling takes it as it is (it asks the line's
	// amount): a page may preselect it.
	Accepted bool
}

// Bounds of the sums offered: of one contact's items, the sumItems
// nearest the line's day, taken two to sumMost at a time, at most
// sumOffers sums a line.
const (
	sumItems  = 10
	sumMost   = 4
	sumOffers = 3
)

// Rank answers the pairings a line of amount (signed as the bank writes
// it) posted on day with memo is offered, best first: only candidates of
// its direction (a debit is never offered an income); the exact amount
// first, then the amount due with fine and interest for the days late,
// then sums of one contact's items that make the line exactly, then the
// closest amounts; among equals the one whose names share most words
// with the memo (a PIX's memo names its payer), then the closest due
// days, then by label (TestRank).
func Rank(amount decimal.Decimal, day time.Time, memo string, cs []Candidate) []Ranked {
	out := make([]Ranked, 0, len(cs))
	for _, c := range cs {
		if c.Amount.Sign() == amount.Sign() && !amount.IsZero() {
			r := Ranked{Candidate: c, Asks: c.Amount}
			if c.Owed != nil {
				r.Asks = c.Owed(day)
			}
			r.Accepted = c.Amount.Equal(amount) || r.Asks.Equal(amount)
			out = append(out, r)
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
	tier := func(r Ranked) int {
		switch {
		case r.Items == nil && r.Amount.Equal(amount):
			return 0
		case r.Items == nil && r.Asks.Equal(amount):
			return 1
		case r.Items != nil:
			return 2
		}
		return 3
	}
	byDays := func(a, b Ranked) int {
		if x, y := days(a.Due), days(b.Due); x != y {
			if x < y {
				return -1
			}
			return 1
		}
		return 0
	}
	out = append(out, sums(amount, out, byDays)...)
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := tier(out[i]), tier(out[j]); a != b {
			return a < b
		}
		di, dj := out[i].Asks.Sub(amount).Abs(), out[j].Asks.Sub(amount).Abs()
		if c := di.Cmp(dj); c != 0 {
			return c < 0
		}
		if a, b := shared[out[i].Value], shared[out[j].Value]; a != b {
			return a > b
		}
		if c := byDays(out[i], out[j]); c != 0 {
			return c < 0
		}
		return out[i].Label < out[j].Label
	})
	return out
}

// sums are the pairings of two to sumMost items of one contact whose
// asks add up to amount (of each contact, its sumItems items nearest the
// day), at most sumOffers, those of fewer items first.
func sums(amount decimal.Decimal, single []Ranked, byDays func(a, b Ranked) int) []Ranked {
	byContact := map[string][]Ranked{}
	var contacts []string
	for _, r := range single {
		if r.Contact == "" || r.Accepted {
			continue
		}
		if byContact[r.Contact] == nil {
			contacts = append(contacts, r.Contact)
		}
		byContact[r.Contact] = append(byContact[r.Contact], r)
	}
	sort.Strings(contacts)
	want := amount.Shift(2).IntPart()
	var out []Ranked
	for size := 2; size <= sumMost; size++ {
		for _, who := range contacts {
			items := byContact[who]
			sort.SliceStable(items, func(i, j int) bool { return byDays(items[i], items[j]) < 0 })
			items = items[:min(len(items), sumItems)]
			cents := make([]int64, len(items))
			for i, r := range items {
				cents[i] = r.Asks.Shift(2).IntPart()
			}
			pick := make([]int, 0, size)
			var walk func(from int, sum int64)
			walk = func(from int, sum int64) {
				if len(out) >= sumOffers {
					return
				}
				if len(pick) == size {
					if sum == want {
						out = append(out, sumOf(items, pick))
					}
					return
				}
				for i := from; i < len(items); i++ {
					pick = append(pick, i)
					walk(i+1, sum+cents[i])
					pick = pick[:len(pick)-1]
				}
			}
			walk(0, 0)
		}
	}
	return out
}

// sumOf is the pairing of the items picked.
func sumOf(items []Ranked, pick []int) Ranked {
	r := Ranked{Accepted: true}
	values := make([]string, 0, len(pick))
	for _, i := range pick {
		it := items[i]
		r.Items = append(r.Items, it.Candidate)
		r.Asks = r.Asks.Add(it.Asks)
		values = append(values, it.Value)
		if r.Due.IsZero() || it.Due.Before(r.Due) {
			r.Due = it.Due
		}
	}
	r.Value, r.Contact, r.Names = "items:"+strings.Join(values, ","), items[pick[0]].Contact, items[pick[0]].Names
	r.Amount = r.Asks
	return r
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

package bank

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
)

// Remittance movement codes (FEBRABAN C004; Itaú's note 4 agrees).
const (
	MoveEntry    = "01" // register the boleto
	MoveWriteOff = "02" // ask the bank to write it off (cancelled charge)
	MoveDueDate  = "06" // a registered boleto's new due date
)

// Payer is whom a boleto charges.
type Payer struct {
	Name, Document                     string // CPF or CNPJ, digits
	Street, District, Zip, City, State string
}

// Title is one boleto in a remittance: an entry or a write-off request.
type Title struct {
	Movement string
	Our      OurNumber
	// Document is the firm's number of the title ("seu número").
	Document    string
	Issued, Due time.Time
	Amount      decimal.Decimal
	FinePercent decimal.Decimal // on the day after the due date
	InterestDay decimal.Decimal // an amount a day late
	Payer       Payer
	FirmUse     string // the firm's identification, echoed in the return
}

// Remittance is one file: the agreement's titles since the last one.
type Remittance struct {
	Agreement Agreement
	Sequence  int
	Created   time.Time
	Titles    []Title
}

func cents(d decimal.Decimal) string { return d.Shift(2).Round(0).String() }

func ddmmyyyy(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return t.Format("02012006")
}

// NumericCNPJ reports whether a CNPJ fits the layouts' numeric
// inscription fields: 14 digits (an alphanumeric CNPJ does not).
func NumericCNPJ(cnpj string) bool { return len(cnpj) == 14 && brdoc.Digits(cnpj) == cnpj }

// headerValues are the values every record's header fields take for an
// agreement: whose file it is (inscription, agency, account, agreement or
// transmission code), when and which. Remittances, test mode's returns and
// the check of a return's header (Foreign) read them from here.
func headerValues(a Agreement, seq int, created time.Time) map[string]string {
	kind, insc := inscription(a.CNPJ)
	return map[string]string{
		"inscription_kind": kind, "inscription": insc, "agency": a.Agency, "agency_dv": a.AgencyDV,
		"account": a.Account, "account_dv": a.AccountDV, "account_dac": a.AccountDV, "agreement": a.Code, "wallet": a.Wallet, "variation": a.Variation,
		"transmission": a.Agency + "0000" + pad(a.Code, 7), "firm": a.Name, "date": ddmmyyyy(created), "time": created.Format("150405"),
		"sequence": strconv.Itoa(seq), "batch": "1",
	}
}

func inscription(doc string) (kind, number string) {
	doc = brdoc.Clean(doc)
	switch len(doc) {
	case 11:
		return "1", doc
	case 14:
		return "2", doc
	}
	return "0", "0"
}

// Remittance writes the CNAB 240 remittance file: file header, one batch
// (header, segments P, Q and R for each entry, P for each write-off,
// trailer), file trailer; 240 columns a record, CRLF after each.
func (b *Bank) Remittance(rm Remittance) ([]byte, error) {
	a, l := rm.Agreement, b.layout
	common := headerValues(a, rm.Sequence, rm.Created)
	var out []string
	add := func(r record, vals map[string]string) error {
		merged := map[string]string{}
		for k, v := range common {
			merged[k] = v
		}
		for k, v := range vals {
			merged[k] = v
		}
		line, err := r.format(merged)
		if err != nil {
			return err
		}
		out = append(out, line)
		return nil
	}
	if err := add(l.fileHeader, map[string]string{"batch": ""}); err != nil {
		return nil, err
	}
	if err := add(l.batchHeader, nil); err != nil {
		return nil, err
	}
	seq, total := 0, decimal.Zero
	for _, t := range rm.Titles {
		pk, pid := inscription(t.Payer.Document)
		zip := brdoc.Digits(t.Payer.Zip)
		if len(zip) != 8 {
			zip = "00000000"
		}
		dayAfter := t.Due.AddDate(0, 0, 1)
		p := map[string]string{
			"movement": t.Movement, "wallet": a.Wallet, "our_number": b.ourInFile(t.Our), "our_dv": t.Our.DV,
			"document": t.Document, "due": ddmmyyyy(t.Due), "amount": cents(t.Amount), "kind": b.kind(),
			"accept": "N", "issued": ddmmyyyy(t.Issued), "firm_use": t.FirmUse, "protest": "3", "protest_days": "0",
			"interest_code": "1", "interest_date": ddmmyyyy(dayAfter), "interest": cents(t.InterestDay),
			"collection_account": a.Account, "collection_account_dv": a.AccountDV,
			"writeoff": "1", "writeoff_days": "60",
		}
		switch b.Code {
		case "033":
			// Santander: wallets up to 200 are "cobrança simples rápida
			// com registro" (5), the others simple (1); the transmission
			// code is agency, 0000 and the beneficiary code (Santander's
			// note 3).
			if a.Wallet > "200" {
				p["portfolio"] = "1"
			}
		case "001":
			// BB's "código da carteira": 7 for wallet 17 simple, 1 for 11
			// and 12 simple.
			p["portfolio"] = "1"
			if a.Wallet == "17" {
				p["portfolio"] = "7"
			}
		case "341":
			p["writeoff"], p["writeoff_days"] = "0", "0"
		}
		if !t.InterestDay.IsPositive() {
			p["interest_code"], p["interest_date"] = "3", "0"
		}
		segments := []struct {
			rec  record
			vals map[string]string
		}{
			{l.p, p},
			{l.q, map[string]string{"movement": t.Movement, "payer_kind": pk, "payer_id": pid, "payer": t.Payer.Name,
				"street": t.Payer.Street, "district": t.Payer.District, "zip": zip[:5], "zip_suffix": zip[5:],
				"city": t.Payer.City, "state": t.Payer.State}},
			{l.r, map[string]string{"movement": t.Movement, "fine_code": fineCode(t.FinePercent), "fine_date": fineDate(t.FinePercent, dayAfter),
				"fine": cents(t.FinePercent)}},
		}
		if t.Movement != MoveEntry {
			// An instruction on a registered title (a write-off, a new due
			// date) is its segment P alone: the payer and the fine are the
			// bank's already.
			segments = segments[:1]
		}
		for _, r := range segments {
			seq++
			r.vals["seq"] = strconv.Itoa(seq)
			if err := add(r.rec, r.vals); err != nil {
				return nil, fmt.Errorf("title %s: %w", t.Document, err)
			}
		}
		if t.Movement == MoveEntry {
			total = total.Add(t.Amount)
		}
	}
	if err := add(l.batchTrailer, map[string]string{"records": strconv.Itoa(seq + 2),
		"simple_count": strconv.Itoa(len(rm.Titles)), "simple_total": cents(total)}); err != nil {
		return nil, err
	}
	if err := add(l.fileTrailer, map[string]string{"batch": "", "batches": "1", "records": strconv.Itoa(len(out) + 1)}); err != nil {
		return nil, err
	}
	return []byte(strings.Join(out, "\r\n") + "\r\n"), nil
}

// kind is the title's species: a commercial invoice ("duplicata
// mercantil"), Itaú's code 01, FEBRABAN's 02.
func (b *Bank) kind() string {
	if b.Code == "341" {
		return "01"
	}
	return "02"
}

func fineCode(p decimal.Decimal) string {
	if p.IsPositive() {
		return "2" // a percentage
	}
	return "0"
}

func fineDate(p decimal.Decimal, d time.Time) string {
	if p.IsPositive() {
		return ddmmyyyy(d)
	}
	return "0"
}

// Package statement reads a bank account's statement as Brazilian banks
// export it: OFX 1.x (SGML, usually in Windows-1252) and OFX 2.x (XML),
// parsed by github.com/aclindsa/ofxgo. It knows nothing of HTTP or SQL.
package statement

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/aclindsa/ofxgo"
	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/charmap"
)

// Line is one statement line.
type Line struct {
	FITID  string
	Posted string // YYYY-MM-DD, the bank's day
	Amount decimal.Decimal
	Memo   string
}

// Statement is what an OFX file says of one account.
type Statement struct {
	BankID, AccountID string
	Lines             []Line
}

// ErrNotOFX is a file that is not an OFX bank statement.
var ErrNotOFX = errors.New("not an OFX bank statement")

var (
	sgmlCharset = regexp.MustCompile(`(?m)^CHARSET:\s*(1252|ISO-8859-1|8859-1)\s*$`)
	// Brazilian exports write amounts with a decimal comma now and then.
	commaAmount = regexp.MustCompile(`(<TRNAMT>\s*-?[0-9.]*),([0-9]+)`)
)

// Parse reads an OFX statement: every STMTTRN of its bank (or credit card)
// statement, amounts exact, dates as the bank's day.
func Parse(data []byte) (Statement, error) {
	var st Statement
	if sgmlCharset.Match(data) {
		// A 1.x file in Windows-1252: its memos' accents become UTF-8.
		if utf, err := charmap.Windows1252.NewDecoder().Bytes(data); err == nil {
			data = bytes.Replace(utf, []byte("CHARSET:1252"), []byte("CHARSET:NONE"), 1)
		}
	}
	data = commaAmount.ReplaceAll(data, []byte("$1.$2"))
	resp, err := ofxgo.DecodeResponse(bytes.NewReader(data))
	if err != nil {
		return st, fmt.Errorf("%w: %v", ErrNotOFX, err)
	}
	var list *ofxgo.TransactionList
	switch {
	case len(resp.Bank) > 0:
		s, ok := resp.Bank[0].(*ofxgo.StatementResponse)
		if !ok {
			return st, ErrNotOFX
		}
		st.BankID, st.AccountID = string(s.BankAcctFrom.BankID), string(s.BankAcctFrom.AcctID)
		list = s.BankTranList
	case len(resp.CreditCard) > 0:
		s, ok := resp.CreditCard[0].(*ofxgo.CCStatementResponse)
		if !ok {
			return st, ErrNotOFX
		}
		st.AccountID = string(s.CCAcctFrom.AcctID)
		list = s.BankTranList
	default:
		return st, fmt.Errorf("%w: no bank statement in the file", ErrNotOFX)
	}
	if list == nil {
		return st, nil
	}
	seen := map[string]bool{}
	for i, t := range list.Transactions {
		fitid := strings.TrimSpace(string(t.FiTID))
		if fitid == "" {
			return st, fmt.Errorf("%w: transaction %d has no FITID", ErrNotOFX, i+1)
		}
		if seen[fitid] {
			continue // a bank that repeats a line within one file
		}
		seen[fitid] = true
		amt, err := decimal.NewFromString(t.TrnAmt.Rat.FloatString(2))
		if err != nil {
			return st, fmt.Errorf("%w: transaction %s: amount %v", ErrNotOFX, fitid, err)
		}
		posted := t.DtPosted.Time
		// The bank's day: a date at midnight of a zone west of UTC
		// (Brazil) must not turn into the day before.
		day := time.Date(posted.Year(), posted.Month(), posted.Day(), 0, 0, 0, 0, time.UTC)
		memo := strings.TrimSpace(string(t.Memo))
		if memo == "" {
			memo = strings.TrimSpace(string(t.Name))
		}
		st.Lines = append(st.Lines, Line{FITID: fitid, Posted: day.Format(time.DateOnly), Amount: amt, Memo: memo})
	}
	return st, nil
}

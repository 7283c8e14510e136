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
	"unicode/utf8"

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
	BankID, BranchID, AccountID string
	Currency                    string // CURDEF, upper case
	Lines                       []Line
}

// Errors of Parse and For.
var (
	// ErrNotOFX is a file that is not an OFX bank statement.
	ErrNotOFX = errors.New("not an OFX bank statement")
	// ErrCurrency is a statement in another currency than the real.
	ErrCurrency = errors.New("the statement is not in reais (CURDEF BRL)")
)

// OtherAccountError is a file with no statement of the chosen account:
// Found lists the accounts it holds as the API says them ("bank 001,
// account 99887-1"), Accounts the same for a page to say in its words.
type OtherAccountError struct {
	Found    []string
	Accounts []FoundAccount
}

// FoundAccount is an account a statement file holds, as the file names it
// ("" where it does not).
type FoundAccount struct{ Bank, Account string }

func (e *OtherAccountError) Error() string {
	return "the file holds no statement of this account; it holds " + strings.Join(e.Found, "; ")
}

// Account is a bank account as the firm registered it: the bank's code,
// agency and account with their check digits.
type Account struct {
	Bank, Agency, AgencyDV, Number, NumberDV string
}

// bare keeps a number's digits (and X, a check digit) without leading
// zeros, as banks write the same account "0057123457", "12345-7" or
// "057/12345-7".
func bare(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r >= '0' && r <= '9' || r == 'X' {
			b.WriteRune(r)
		}
	}
	return strings.TrimLeft(b.String(), "0")
}

// holds reports whether an OFX account id names the account: its number
// with or without its digit, with or without the agency (and the agency's
// digit) in front, leading zeros and punctuation aside.
func (a Account) holds(acctID string) bool {
	id := bare(acctID)
	if id == "" || bare(a.Number) == "" {
		return false
	}
	for _, agency := range []string{"", a.Agency, a.Agency + a.AgencyDV} {
		for _, number := range []string{a.Number, a.Number + a.NumberDV} {
			if bare(agency+number) == id || agency != "" && bare(agency) != "" && bare(agency)+bare(number) == id {
				return true
			}
		}
	}
	return false
}

// For answers the lines of the file's statements of the account (several
// statements of it are read as one): the bank's code (BANKID) is the
// account's bank, the account id names it (holds), and the currency is
// BRL (ErrCurrency). A file of other accounts is an *OtherAccountError
// naming them: nothing of it may settle this account's charges
// (TestStatementOfAnotherAccount).
func (a Account) For(sts []Statement) (Statement, error) {
	out := Statement{BankID: a.Bank, AccountID: a.Number, Currency: "BRL"}
	var found []string
	var accounts []FoundAccount
	ok := false
	for _, st := range sts {
		sameBank := st.BankID == "" || bare(st.BankID) == bare(a.Bank)
		if !sameBank || !a.holds(st.AccountID) {
			found = append(found, fmt.Sprintf("bank %s, account %s", orNone(st.BankID), orNone(st.AccountID)))
			accounts = append(accounts, FoundAccount{Bank: st.BankID, Account: st.AccountID})
			continue
		}
		if st.Currency != "BRL" {
			return out, fmt.Errorf("%w: it is %s", ErrCurrency, orNone(st.Currency))
		}
		ok = true
		out.Lines = append(out.Lines, st.Lines...)
	}
	if !ok {
		return out, &OtherAccountError{Found: found, Accounts: accounts}
	}
	return out, nil
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}

var (
	sgmlCharset = regexp.MustCompile(`(?m)^CHARSET:\s*(1252|ISO-8859-1|8859-1)\s*$`)
	// Brazilian exports write amounts with a decimal comma now and then.
	commaAmount = regexp.MustCompile(`(<TRNAMT>\s*-?[0-9.]*),([0-9]+)`)
)

// Parse reads an OFX file: each bank (or credit card) statement in it,
// every STMTTRN with its amount exact and its date as the bank's day.
func Parse(data []byte) ([]Statement, error) {
	if sgmlCharset.Match(data) && !(utf8.Valid(data) && hasNonASCII(data)) {
		// A 1.x file in Windows-1252: its memos' accents become UTF-8.
		// Bytes that are valid UTF-8 with accents are UTF-8 whatever the
		// header says (some banks label UTF-8 exports 1252).
		if utf, err := charmap.Windows1252.NewDecoder().Bytes(data); err == nil {
			data = utf
		}
	}
	data = sgmlCharset.ReplaceAll(data, []byte("CHARSET:NONE"))
	data = commaAmount.ReplaceAll(data, []byte("$1.$2"))
	resp, err := ofxgo.DecodeResponse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotOFX, err)
	}
	var out []Statement
	for _, m := range resp.Bank {
		s, ok := m.(*ofxgo.StatementResponse)
		if !ok {
			continue
		}
		st := Statement{BankID: string(s.BankAcctFrom.BankID), BranchID: string(s.BankAcctFrom.BranchID),
			AccountID: string(s.BankAcctFrom.AcctID), Currency: strings.ToUpper(s.CurDef.String())}
		if err := st.read(s.BankTranList); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	for _, m := range resp.CreditCard {
		s, ok := m.(*ofxgo.CCStatementResponse)
		if !ok {
			continue
		}
		st := Statement{AccountID: string(s.CCAcctFrom.AcctID), Currency: strings.ToUpper(s.CurDef.String())}
		if err := st.read(s.BankTranList); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no bank statement in the file", ErrNotOFX)
	}
	return out, nil
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// read adds a transaction list's lines.
func (st *Statement) read(list *ofxgo.TransactionList) error {
	if list == nil {
		return nil
	}
	seen := map[string]bool{}
	for i, t := range list.Transactions {
		fitid := strings.TrimSpace(string(t.FiTID))
		if fitid == "" {
			return fmt.Errorf("%w: transaction %d has no FITID", ErrNotOFX, i+1)
		}
		if seen[fitid] {
			continue // a bank that repeats a line within one file
		}
		seen[fitid] = true
		amt, err := decimal.NewFromString(t.TrnAmt.Rat.FloatString(2))
		if err != nil {
			return fmt.Errorf("%w: transaction %s: amount %v", ErrNotOFX, fitid, err)
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
	return nil
}

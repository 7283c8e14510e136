package statement

import (
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aclindsa/ofxgo"
	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/charmap"
)

func TestParseBrazilianExports(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, acct string
		lines      []Line
	}{
		// OFX 1.02 SGML in Windows-1252, a decimal comma, dates at
		// midnight Brasília time (Itaú's export).
		{"itau_102_sgml.ofx", "0057123457", []Line{
			{"20261128001", "2026-11-28", decimal.RequireFromString("1500"), "PIX RECEBIDO ALFA COMÉRCIO"},
			{"20261120002", "2026-11-20", decimal.RequireFromString("-250.75"), "PAGTO BOLETO ENERGIA ELÉTRICA"},
			{"20261121003", "2026-11-21", decimal.RequireFromString("99.9"), "TED RECEBIDA"},
		}},
		// OFX 2.11 XML, dates without time (Banco do Brasil's export).
		{"bb_211_xml.ofx", "99887-1", []Line{
			{"BB-7781", "2026-11-28", decimal.RequireFromString("1500"), "Pix - Recebido - Alfa Comércio Ltda"},
			{"BB-7782", "2026-11-19", decimal.RequireFromString("-250.75"), "Pagamento de boleto"},
		}},
	} {
		data, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		sts, err := Parse(data)
		if err != nil || len(sts) != 1 {
			t.Fatalf("%s: %v %d", c.file, err, len(sts))
		}
		st := sts[0]
		if st.Currency != "BRL" || st.AccountID != c.acct || len(st.Lines) != len(c.lines) {
			t.Fatalf("%s: %+v", c.file, st)
		}
		for i, l := range st.Lines {
			w := c.lines[i]
			if l.FITID != w.FITID || l.Posted != w.Posted || !l.Amount.Equal(w.Amount) || l.Memo != w.Memo {
				t.Errorf("%s line %d: %+v, want %+v", c.file, i, l, w)
			}
		}
	}
}

// TestParseOfxgoEncoded: a statement written by ofxgo's own encoder, in
// both dialects, reads back line for line.
func TestParseOfxgoEncoded(t *testing.T) {
	t.Parallel()
	brl, _ := ofxgo.NewCurrSymbol("BRL")
	for _, v := range []ofxgo.Response{{Version: ofxgo.OfxVersion102}, {Version: ofxgo.OfxVersion211}} {
		amt := func(s string) ofxgo.Amount {
			var a ofxgo.Amount
			r, _ := new(big.Rat).SetString(s)
			a.Rat = *r
			return a
		}
		day := ofxgo.Date{Time: time.Date(2026, 11, 28, 0, 0, 0, 0, time.FixedZone("BRT", -3*3600))}
		resp := v
		resp.Signon = ofxgo.SignonResponse{Status: ofxgo.Status{Code: 0, Severity: "INFO"}, DtServer: day, Language: "POR"}
		resp.Bank = []ofxgo.Message{&ofxgo.StatementResponse{TrnUID: "1", Status: ofxgo.Status{Code: 0, Severity: "INFO"}, CurDef: *brl,
			BankAcctFrom: ofxgo.BankAcct{BankID: "0237", AcctID: "5065119", AcctType: ofxgo.AcctTypeChecking},
			BankTranList: &ofxgo.TransactionList{DtStart: day, DtEnd: day, Transactions: []ofxgo.Transaction{
				{TrnType: ofxgo.TrnTypeCredit, DtPosted: day, TrnAmt: amt("320.10"), FiTID: "A1", Memo: "Depósito"},
				{TrnType: ofxgo.TrnTypeDebit, DtPosted: day, TrnAmt: amt("-12.00"), FiTID: "A2", Memo: "Tarifa"},
			}},
			BalAmt: amt("308.10"), DtAsOf: day}}
		buf, err := resp.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		sts, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("%v: %v\n%s", v.Version, err, buf)
		}
		st := sts[0]
		if len(st.Lines) != 2 || st.Lines[0].FITID != "A1" || !st.Lines[0].Amount.Equal(decimal.RequireFromString("320.1")) ||
			st.Lines[0].Posted != "2026-11-28" || st.Lines[1].Memo != "Tarifa" || st.AccountID != "5065119" {
			t.Errorf("%v: %+v", v.Version, st)
		}
	}
}

func TestParseRefusesOther(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"", "not ofx", "<OFX><BANKMSGSRSV1>", "OFXHEADER:100\r\nDATA:OFXSGML\r\n\r\n<OFX></OFX>"} {
		if _, err := Parse([]byte(b)); !errors.Is(err, ErrNotOFX) {
			t.Errorf("%q: %v", b, err)
		}
	}
}

// multiAccounts is an OFX 2.x file of three statements, as a bank's
// "all accounts" export writes it: a checking account, a savings account
// of the same bank, and a dollar account.
const multiAccounts = `<?xml version="1.0" encoding="UTF-8"?>
<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS><DTSERVER>20261130</DTSERVER><LANGUAGE>POR</LANGUAGE></SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1>
<STMTTRNRS><TRNUID>1</TRNUID><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS><STMTRS><CURDEF>BRL</CURDEF>
<BANKACCTFROM><BANKID>341</BANKID><BRANCHID>0057</BRANCHID><ACCTID>12345-7</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101</DTSTART><DTEND>20261130</DTEND>
<STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20261110</DTPOSTED><TRNAMT>100.00</TRNAMT><FITID>C1</FITID><MEMO>Crédito</MEMO></STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>100.00</BALAMT><DTASOF>20261130</DTASOF></LEDGERBAL></STMTRS></STMTTRNRS>
<STMTTRNRS><TRNUID>2</TRNUID><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS><STMTRS><CURDEF>BRL</CURDEF>
<BANKACCTFROM><BANKID>341</BANKID><BRANCHID>0057</BRANCHID><ACCTID>55555-1</ACCTID><ACCTTYPE>SAVINGS</ACCTTYPE></BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101</DTSTART><DTEND>20261130</DTEND>
<STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20261111</DTPOSTED><TRNAMT>7.00</TRNAMT><FITID>S1</FITID><MEMO>Rendimento</MEMO></STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>7.00</BALAMT><DTASOF>20261130</DTASOF></LEDGERBAL></STMTRS></STMTTRNRS>
<STMTTRNRS><TRNUID>3</TRNUID><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS><STMTRS><CURDEF>USD</CURDEF>
<BANKACCTFROM><BANKID>341</BANKID><BRANCHID>0057</BRANCHID><ACCTID>77777-2</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101</DTSTART><DTEND>20261130</DTEND>
<STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20261112</DTPOSTED><TRNAMT>50.00</TRNAMT><FITID>U1</FITID><MEMO>Wire</MEMO></STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>50.00</BALAMT><DTASOF>20261130</DTASOF></LEDGERBAL></STMTRS></STMTTRNRS>
</BANKMSGSRSV1></OFX>
`

// TestStatementOfAnotherAccount: of a file's statements, only the chosen
// account's, in reais, is read; the account is recognised however the
// bank writes it; a file of other accounts is refused naming them.
func TestStatementOfAnotherAccount(t *testing.T) {
	t.Parallel()
	sts, err := Parse([]byte(multiAccounts))
	if err != nil || len(sts) != 3 {
		t.Fatalf("%d statements, %v", len(sts), err)
	}
	itau := Account{Bank: "341", Agency: "0057", Number: "12345", NumberDV: "7"}
	st, err := itau.For(sts)
	if err != nil || len(st.Lines) != 1 || st.Lines[0].FITID != "C1" || st.Lines[0].Memo != "Crédito" {
		t.Fatalf("checking: %+v %v", st, err)
	}
	savings := Account{Bank: "0341", Agency: "57", Number: "0055555", NumberDV: "1"}
	if st, err := savings.For(sts); err != nil || len(st.Lines) != 1 || st.Lines[0].FITID != "S1" {
		t.Fatalf("savings: %+v %v", st, err)
	}
	if _, err := (Account{Bank: "341", Agency: "0057", Number: "77777", NumberDV: "2"}).For(sts); !errors.Is(err, ErrCurrency) {
		t.Errorf("dollar account: %v", err)
	}
	var other *OtherAccountError
	if _, err := (Account{Bank: "001", Agency: "1234", AgencyDV: "5", Number: "99887", NumberDV: "1"}).For(sts); !errors.As(err, &other) ||
		strings.Join(other.Found, "; ") != "bank 341, account 12345-7; bank 341, account 55555-1; bank 341, account 77777-2" {
		t.Errorf("another bank's account: %v", err)
	}
	// The same number at another bank is another account.
	if _, err := (Account{Bank: "237", Agency: "0057", Number: "12345", NumberDV: "7"}).For(sts); !errors.As(err, &other) {
		t.Errorf("same number, other bank: %v", err)
	}
	for _, id := range []string{"0057123457", "12345-7", "123457", "0057/12345-7", "00571234-57", "000012345-7"} {
		if !itau.holds(id) {
			t.Errorf("%s is the account 0057 / 12345-7", id)
		}
	}
	for _, id := range []string{"12345-8", "655000-2", "", "0058123457", "1234"} {
		if itau.holds(id) {
			t.Errorf("%s is not the account 0057 / 12345-7", id)
		}
	}
}

// TestUTF8LabelledWindows1252: a file that says CHARSET:1252 but whose
// bytes are UTF-8 reads as UTF-8 ("CRÉDITO", not "CRÃ‰DITO"); a real
// Windows-1252 file still reads as such.
func TestUTF8LabelledWindows1252(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/itau_102_sgml.ofx")
	if err != nil {
		t.Fatal(err)
	}
	utf, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"windows-1252": data, "utf-8 labelled 1252": utf} {
		sts, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m := sts[0].Lines[0].Memo; m != "PIX RECEBIDO ALFA COMÉRCIO" {
			t.Errorf("%s: memo %q", name, m)
		}
	}
}

package statement

import (
	"errors"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/aclindsa/ofxgo"
	"github.com/shopspring/decimal"
)

func TestParseBrazilianExports(t *testing.T) {
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
		st, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if st.AccountID != c.acct || len(st.Lines) != len(c.lines) {
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
		st, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("%v: %v\n%s", v.Version, err, buf)
		}
		if len(st.Lines) != 2 || st.Lines[0].FITID != "A1" || !st.Lines[0].Amount.Equal(decimal.RequireFromString("320.1")) ||
			st.Lines[0].Posted != "2026-11-28" || st.Lines[1].Memo != "Tarifa" || st.AccountID != "5065119" {
			t.Errorf("%v: %+v", v.Version, st)
		}
	}
}

func TestParseRefusesOther(t *testing.T) {
	for _, b := range []string{"", "not ofx", "<OFX><BANKMSGSRSV1>", "OFXHEADER:100\r\nDATA:OFXSGML\r\n\r\n<OFX></OFX>"} {
		if _, err := Parse([]byte(b)); !errors.Is(err, ErrNotOFX) {
			t.Errorf("%q: %v", b, err)
		}
	}
}

package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

var sample = Table{Name: "Lançamentos: novembro/2026", Columns: []Column{{"Descrição", ColText}, {"Vencimento", ColDate}, {"Valor", ColMoney}, {"Parcela", ColInt}},
	Rows: [][]string{{"Aluguel; sala 2", "2026-11-05", "2500.00", "1"}, {"=HYPERLINK(\"x\")", "2026-11-30", "-39.9", "2"}, {"Maior valor", "2026-12-01", "999999999999.99", "3"}}}

// TestTableCSV: a CSV as Brazilian spreadsheets open it: a BOM, `;`
// between cells (quoted when a cell holds one), a comma before the cents,
// dates as DD/MM/YYYY, and a text that would be a formula kept as text.
func TestTableCSV(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := sample.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "\ufeffDescrição;Vencimento;Valor;Parcela\r\n\"Aluguel; sala 2\";05/11/2026;2500,00;1\r\n\"'=HYPERLINK(\"\"x\"\")\";30/11/2026;-39,90;2\r\n" +
		"Maior valor;01/12/2026;999999999999,99;3\r\n"
	if b.String() != want {
		t.Errorf("CSV:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestTableXLSX: an XLSX whose money and integers are numbers, whose
// dates are dates, and whose sheet is named within Excel's rules.
func TestTableXLSX(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := sample.WriteXLSX(&b); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := f.GetSheetList()[0]
	if sheet != "Lançamentos- novembro-2026" {
		t.Errorf("sheet %q", sheet)
	}
	if got, _ := f.GetCellType(sheet, "A2"); got != excelize.CellTypeInlineString && got != excelize.CellTypeSharedString {
		t.Errorf("A2 is %v, not a string", got)
	}
	for _, cell := range []string{"B2", "C2", "D2"} {
		if got, _ := f.GetCellType(sheet, cell); got != excelize.CellTypeUnset && got != excelize.CellTypeNumber {
			t.Errorf("%s is %v, not a number", cell, got)
		}
	}
	raw := func(cell string) string {
		v, _ := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
		return v
	}
	if raw("C2") != "2500" || raw("C3") != "-39.9" || raw("C4") != "999999999999.99" || raw("D3") != "2" {
		t.Errorf("money and integers: %s %s %s %s", raw("C2"), raw("C3"), raw("C4"), raw("D3"))
	}
	// A date is a serial day number with a date format.
	if raw("B2") != "46331" {
		t.Errorf("the date is %q, want the serial 46331 (2026-11-05)", raw("B2"))
	}
	if v, _ := f.GetCellValue(sheet, "A3"); !strings.HasPrefix(v, "=HYPERLINK") {
		t.Errorf("text %q", v)
	}
	if fs, _ := f.GetCellFormula(sheet, "A3"); fs != "" {
		t.Errorf("a text became the formula %q", fs)
	}
}

package render

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
)

// Kinds of a table's column: how a spreadsheet takes its cells.
const (
	ColText  = "text"
	ColMoney = "money" // a decimal with two places
	ColDate  = "date"  // YYYY-MM-DD
	ColInt   = "int"
	ColNum   = "number" // a decimal as it is (a quantity)
)

// Column is a column of an exported table.
type Column struct{ Title, Kind string }

// Table is a list as it is exported: its name (the sheet's and the
// file's), its columns and its rows, each cell as text (money as a
// decimal with a point, dates as YYYY-MM-DD, as the store keeps them).
type Table struct {
	Name    string
	Columns []Column
	Rows    [][]string
}

// WriteCSV writes t as Brazilian spreadsheets open a CSV: UTF-8 with a
// byte order mark, `;` between cells, a comma before the cents, dates as
// DD/MM/YYYY, CRLF line ends.
func (t Table) WriteCSV(w io.Writer) error {
	var buf bytes.Buffer
	buf.WriteString("\ufeff")
	cw := csv.NewWriter(&buf)
	cw.Comma, cw.UseCRLF = ';', true
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Title
	}
	cw.Write(head)
	for _, r := range t.Rows {
		out := make([]string, len(r))
		for i, v := range r {
			switch t.Columns[i].Kind {
			case ColMoney:
				if d, err := decimal.NewFromString(v); err == nil {
					v = strings.Replace(d.StringFixed(2), ".", ",", 1)
				}
			case ColNum:
				v = strings.Replace(v, ".", ",", 1)
			case ColDate:
				v = DateBR(v)
			default:
				// A text a spreadsheet would take for a formula is
				// written as text (CSV injection).
				if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
					v = "'" + v
				}
			}
			out[i] = v
		}
		cw.Write(out)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteXLSX writes t as an Excel workbook of one sheet: money as numbers
// formatted with two places, dates as dates, integers as numbers, the
// header bold and frozen.
func (t Table) WriteXLSX(w io.Writer) error {
	f := excelize.NewFile()
	defer f.Close()
	sheet := sheetName(t.Name)
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	money, err := f.NewStyle(&excelize.Style{NumFmt: 4}) // #,##0.00
	if err != nil {
		return err
	}
	date, err := f.NewStyle(&excelize.Style{NumFmt: 14}) // the locale's short date
	if err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	head := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = excelize.Cell{StyleID: bold, Value: c.Title}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := sw.SetRow("A1", head); err != nil {
		return err
	}
	for n, r := range t.Rows {
		row := make([]any, len(r))
		for i, v := range r {
			row[i] = v
			switch t.Columns[i].Kind {
			case ColMoney:
				if d, err := decimal.NewFromString(v); err == nil {
					// Excel keeps numbers as doubles; an amount of
					// fincom's (at most 15 significant digits, two
					// places) comes back from one as the same decimal.
					row[i] = excelize.Cell{StyleID: money, Value: d.InexactFloat64()}
				}
			case ColNum:
				if d, err := decimal.NewFromString(v); err == nil {
					row[i] = d.InexactFloat64()
				}
			case ColDate:
				if d, err := time.Parse("2006-01-02", v); err == nil {
					row[i] = excelize.Cell{StyleID: date, Value: d}
				}
			case ColInt:
				var k int64
				if _, err := fmt.Sscan(v, &k); err == nil {
					row[i] = k
				}
			}
		}
		cell, _ := excelize.CoordinatesToCellName(1, n+2)
		if err := sw.SetRow(cell, row); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	_, err = f.WriteTo(w)
	return err
}

// sheetName is name as Excel takes a sheet's: at most 31 characters,
// none of : \ / ? * [ ].
func sheetName(name string) string {
	name = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`:\/?*[]`, r) {
			return '-'
		}
		return r
	}, name)
	if r := []rune(name); len(r) > 31 {
		name = string(r[:31])
	}
	if name == "" {
		name = "fincom"
	}
	return name
}

package registers

import (
	"unicode/utf8"

	"fincom/server/brdoc"
	"fincom/server/fiscal/reform"
	"fincom/server/problem"
	"fincom/store"
)

// A product's or service's refusals, in the spec's words
// (/insert_product_or_service).
var (
	ErrInvalidProductType = problem.New(problem.Invalid, "Invalid type. Use product, service or all.")
	ErrInvalidNCM         = problem.New(problem.Invalid, "Invalid ncm. Use 8 digits.")
	ErrInvalidCFOP        = problem.New(problem.Invalid, "Invalid cfop. Use 4 digits starting with 1 to 7.")
	ErrInvalidUsageType   = problem.New(problem.Invalid, "Invalid usage_type. Use a SPED item type code (00 to 10, or 99).")
	ErrInvalidUnit        = problem.New(problem.Invalid, "Invalid unit. Use up to 6 characters.")
	ErrInvalidGTIN        = problem.New(problem.Invalid, "Invalid gtin. Use a product's GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14) with its check digit.")
	// ErrInvalidIBSCBS is a wrong tax reform code: its details name the
	// field and say why (IBSCBSProblem).
	ErrInvalidIBSCBS = problem.New(problem.Unprocessable, "Invalid IBS and CBS classification: details.field is the field at fault, details.message says why.")
)

// IBSCBSProblem is what is wrong with a product's tax reform code.
type IBSCBSProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// usageTypes are the SPED EFD item types (registro 0200, TIPO_ITEM):
// 00 goods for resale, 01 raw material, 02 packaging, 03 work in progress,
// 04 finished product, 05 by-product, 06 intermediate product, 07 use and
// consumption, 08 fixed asset, 09 service, 10 other inputs, 99 other.
var usageTypes = map[string]bool{
	"00": true, "01": true, "02": true, "03": true, "04": true, "05": true,
	"06": true, "07": true, "08": true, "09": true, "10": true, "99": true,
}

// CheckProduct validates a product or service as it will be stored: its
// kind, SPED usage type, NCM, CFOP, unit, and its IBS and CBS codes by
// the reform's table (nil: not checked).
func CheckProduct(f *store.ProductFields, table *reform.Table) error {
	switch {
	case f.Type != "product" && f.Type != "service":
		return ErrInvalidProductType
	case !usageTypes[f.UsageType]:
		return ErrInvalidUsageType
	case f.NCM != "" && len(f.NCM) != 8:
		return ErrInvalidNCM
	case f.CFOP != "" && (len(f.CFOP) != 4 || f.CFOP[0] < '1' || f.CFOP[0] > '7'):
		return ErrInvalidCFOP
	case utf8.RuneCountInString(f.Unit) > 6:
		return ErrInvalidUnit
	case f.GTIN != "" && (f.Type != "product" || !brdoc.ValidGTIN(f.GTIN)):
		return ErrInvalidGTIN
	}
	if table == nil {
		return nil
	}
	if field, msg := table.Check(f.Type, f.IBSCBSCST, f.IBSCBSClass, f.IBSCBSOperation); field != "" {
		return ErrInvalidIBSCBS.With(IBSCBSProblem{Field: field, Message: msg})
	}
	return nil
}

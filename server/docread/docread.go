// Package docread reads what it can of a received document (NF-e and NFS-e
// XML, the text of a PDF such as a boleto) into expense fields, each with a
// confidence between 0 and 1.
package docread

import (
	"errors"
	"time"
)

// Field is one value read from a document and how sure the reading is:
// 1 for a field of a structured XML, 0.99 for digits whose check digits
// hold, lower for values found next to a label in free text.
type Field struct {
	Value      string  `json:"value" doc:"The value read, as text."`
	Confidence float64 `json:"confidence" doc:"How sure the reading is, 0 to 1."`
}

// Item is one line of an invoice.
type Item struct {
	Code        string `json:"code,omitempty" doc:"The supplier's product code (cProd); absent when not read."` // the supplier's product code (cProd)
	Description string `json:"description" doc:"The item's description."`
	NCM         string `json:"ncm,omitempty" doc:"Its NCM; absent when not read."`
	CFOP        string `json:"cfop,omitempty" doc:"Its CFOP; absent when not read."`
	Unit        string `json:"unit,omitempty" doc:"Its unit of measure; absent when not read."`
	Quantity    string `json:"quantity,omitempty" doc:"Its quantity, a decimal string; absent when not read."`
	UnitValue   string `json:"unit_value,omitempty" doc:"Its unit price, a decimal string; absent when not read."`
	Total       string `json:"total,omitempty" doc:"Its total, a decimal string; absent when not read."`
	Tax         string `json:"tax,omitempty" doc:"Its approximate taxes (vTotTrib), a decimal string; absent when not read."` // approximate taxes of the item (vTotTrib)
}

// Result is what was read. Kind is nfe, nfce, nfse, nfse_abrasf, boleto or
// pdf. Field names are the expense's: description, value, due_date,
// competence_date, barcode, access_key, and supplier_register,
// supplier_name, issue_date, document_number.
type Result struct {
	Kind   string           `json:"kind" doc:"What the document was read as."`
	Fields map[string]Field `json:"fields" doc:"Each field read, with its confidence."`
	Items  []Item           `json:"items" doc:"The items read (an NF-e's)."`
}

func (r *Result) set(name, value string, confidence float64) {
	if value == "" {
		return
	}
	if old, ok := r.Fields[name]; ok && old.Confidence >= confidence {
		return
	}
	r.Fields[name] = Field{value, confidence}
}

// Errors the caller answers with 422.
var (
	ErrUnreadable = errors.New("unreadable document")
	ErrNoOCR      = errors.New("images need an OCR engine")
)

// MaxInput bounds what the readers take (a larger file is refused before).
const MaxInput = 10 << 20

// Read reads a document whose type was sniffed from its bytes. now places a
// boleto's due-date factor in the right cycle.
func Read(contentType string, data []byte, now time.Time) (Result, error) {
	if len(data) > MaxInput {
		return Result{}, ErrUnreadable
	}
	switch contentType {
	case "application/xml":
		return ReadXML(data)
	case "application/pdf":
		text, err := PDFText(data)
		if err != nil {
			return Result{}, err
		}
		return ReadText(text, now)
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return Result{}, ErrNoOCR
	}
	return Result{}, ErrUnreadable
}

// dateOf keeps the date of an ISO 8601 timestamp.
func dateOf(s string) string {
	if len(s) >= 10 {
		if _, err := time.Parse(time.DateOnly, s[:10]); err == nil {
			return s[:10]
		}
	}
	return ""
}

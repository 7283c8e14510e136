package render

import (
	"bytes"
	"encoding/base64"
	htmltemplate "html/template"
	"image/png"
	"io"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"
)

// The DANFE is the printed image of a fiscal document, laid out as the
// Manual de Orientação do Contribuinte draws it: for an NF-e the A4 page
// of blocks (receipt stub, emitter and key, operation and protocol,
// recipient, tax calculation, transport, products, additional data); for
// an NFC-e the consumer's narrow receipt with its QR code; for an NFS-e the
// note. Every page of a document of the test environment says so.

// DANFEParty is an emitter or a recipient as the DANFE shows it.
type DANFEParty struct {
	Name, Register, IE, Address, District, City, State, Zip, Phone string
}

// DocumentLine is one product line of a DANFE.
type DocumentLine struct {
	Item                                                                                          int // its number, from 1
	Code, Description, NCM, CST, CFOP, Unit, Quantity, UnitValue, Total, BaseICMS, ICMS, RateICMS string
}

// Labelled is a labelled value (the totals of a DANFE).
type Labelled struct{ Label, Value string }

// DANFEData fills the printable invoice.
type DANFEData struct {
	Kind  string // nfe, nfce, nfse, nfsen
	Title string // "DANFE", "DANFE NFC-e", "NFS-e"
	// Homologation marks a document of the test environment: every page
	// says SEM VALOR FISCAL and EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO.
	Homologation bool
	// Contingency is the notice of a note issued in contingency ("EMITIDA
	// EM CONTINGÊNCIA", and "Pendente de autorização" until SEFAZ
	// authorized it), empty otherwise.
	Contingency       string
	Number, Series    int
	Direction         string // "0" entry, "1" exit
	Operation         string // natureza da operação
	Key, Verification string
	Barcode           htmltemplate.URL // the key's Code 128 (the page's)
	QR                string           // the NFC-e's QR code
	QRImage           htmltemplate.URL // and as an image (the page's)
	ConsultURL        string           // the NFC-e's urlChave
	Protocol          string
	IssuedAt          string
	AuthorizedAt      string
	Emitter           DANFEParty
	Recipient         DANFEParty
	Taxes             []Labelled // the tax calculation block, in the manual's order
	Reform            []Labelled // its IBS and CBS totals, when the note states them
	Freight           string     // who pays the freight
	Items             []DocumentLine
	Payments          []Labelled
	Service           string
	Totals            []Labelled
	AdditionalInfo    string
	Cancelled         bool
	CancelledAt       string
}

// DANFE writes the printable invoice as a page.
func (r *Renderer) DANFE(w io.Writer, d DANFEData) error {
	if d.Kind == "nfce" {
		return r.pages.ExecuteTemplate(w, "danfe_nfce.html", d)
	}
	return r.pages.ExecuteTemplate(w, "danfe.html", d)
}

// QRDataURI draws a QR code (error correction M, as the NFC-e's) as a PNG
// data URI.
func QRDataURI(content string, size int) (htmltemplate.URL, error) {
	code, err := qr.Encode(content, qr.M, qr.Auto)
	if err != nil {
		return "", err
	}
	code, err = barcode.Scale(code, size, size)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, code); err != nil {
		return "", err
	}
	return htmltemplate.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

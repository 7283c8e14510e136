package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// The portal (/portal/): the pages a firm's people use. Its assets are
// embedded and served by fincom itself; its Content-Security-Policy lets
// the pages load only those and post forms only to fincom.

// PortalCSP is the portal pages' Content-Security-Policy: the style sheet
// and the one script come from fincom (which it alone may ask, for a
// CEP's state and cities), nothing is inline, no page may be
// framed, forms post only to fincom (TestPortalFlow).
const PortalCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// PortalAsset answers an embedded asset of the portal by its file name and
// its content type, or false.
func PortalAsset(name string) ([]byte, string, bool) {
	types := map[string]string{"portal.css": "text/css; charset=utf-8", "portal_app.js": "text/javascript; charset=utf-8"}
	ct, ok := types[name]
	if !ok {
		return nil, "", false
	}
	b, err := files.ReadFile("templates/" + name)
	return b, ct, err == nil
}

// PortalUnit is a unit as the portal shows it.
type PortalUnit struct {
	Token, Name, CNPJ, City, IM, Profile string
	// Accountant is where the unit's monthly package is e-mailed, if
	// anywhere.
	Accountant string
	// CertificateEnds is the end of the unit's A1 certificate when it is
	// near (store.CertificateWarning) or past, DD/MM/AAAA; Expired when past.
	CertificateEnds string
	Expired         bool
	// Certificate is the unit's installed A1 certificate, if any.
	Certificate *PortalCertificate
	// Owner: the user is an owner of the unit, who sees its Configurações.
	Owner bool
	// Environment is where the unit's invoices go (homologação or
	// produção); Waiting are its notes sent whose answer was lost, each
	// in a line, until SEFAZ's answer is found.
	Environment string
	Production  bool
	Waiting     []string
	// LastAnswer is the authorities' latest authorization of its notes;
	// LastRefusal their latest answer when it is a rejection or a denial
	// (the note, its code and text), else "".
	LastAnswer  string
	LastRefusal string
}

// PortalPage is what every portal page gets; Body is the page's own.
type PortalPage struct {
	Title  string
	Nav    string // the menu entry of the page
	User   string // "Name <email>", empty before sign-in
	CSRF   string
	Units  []PortalUnit
	Unit   PortalUnit // the unit shown
	Notice string
	Error  string
	Body   any
	// Exports link the CSV and XLSX of the page's lists.
	Exports []ExportLinks
	// Role is the user's role on the unit shown, in Portuguese; Can says
	// which of its forms the page shows.
	Role string
	Can  PortalCan
}

// PortalStep is one of a unit's first steps: what, the section of its
// Configurações that does it (an anchor), and whether it is done.
type PortalStep struct {
	Label, Section string
	Done           bool
}

// PortalCan is what the signed-in user may change on the unit shown
// (access.May), and whether it manages the domain's users and tokens.
type PortalCan struct {
	Finance, Sales, Charges, Invoices, Registers, Users bool
}

// ExportLinks are the addresses of a list's exports, and what the list is.
type ExportLinks struct{ Label, CSV, XLSX string }

// Portal writes the portal page name (portal_NAME.html).
func (r *Renderer) Portal(w io.Writer, name string, p PortalPage) error {
	return r.pages.ExecuteTemplate(w, "portal_"+name+".html", p)
}

// LoginForm is the sign-in page's body.
type LoginForm struct{ Domain, Email string }

// PortalToken is an access token in the profile's list: its label and
// who made it.
type PortalToken struct {
	ID                int64
	Hint, Label, User string
	Created, Revoked  string
}

// PortalProfile is the profile page's body: the user's roles, and the
// tokens it made (all of the domain's for an owner of every unit).
type PortalProfile struct {
	NewToken string // shown once, right after it is made
	FormKey  string // the new token form's one-time key
	Roles    []string
	All      bool
	Tokens   []PortalToken
}

// PortalUser is a user in the users page's list, with its roles.
type PortalUser struct {
	Name, Email string
	Roles       []string
}

// PortalUsers is the users page's body: the domain's users.
type PortalUsers struct {
	Users []PortalUser
}

// PortalDay is one day of the month's table.
type PortalDay struct {
	Date                                                       string
	In, Out, Balance, ForecastIn, ForecastOut, ForecastBalance string
}

// PortalOrder is one of the latest orders.
type PortalOrder struct {
	Token, Code, Customer, Date, Total, Charge, Invoice string
}

// PortalHome is the month at a glance.
type PortalHome struct {
	Month string // "Novembro de 2026"
	// MonthParam is the month shown (YYYY-MM), PrevMonth and NextMonth
	// the ones before and after it.
	MonthParam, PrevMonth, NextMonth string
	// Owner: the user is an owner of the unit (its Configurações are
	// linked); Steps are the unit's first steps, shown while one is
	// left.
	Owner bool
	Steps []PortalStep
	// ForecastIn, ForecastOut and ForecastClosing are what is open and
	// due by the month's end (Expected, and the payables) and the closing
	// balance they make.
	Opening, In, Out, ForecastIn, ForecastOut                    string
	Closing, ForecastClosing                                     string
	ReceivableDue, ReceivableOverdue, PayableDue, PayableOverdue string
	// What orders and charges are still to receive, not booked as
	// entries (store.Receivables): charges, and orders without one.
	ChargesDue, ChargesOverdue, OrdersDue, OrdersOverdue string
	// Expected is everything to receive up to the month's end, entries,
	// charges and orders together, each once.
	Expected string
	Days     []PortalDay
	// Chart is drawn for a screen, Phone for a phone's: the page shows the
	// one that fits.
	Chart, Phone CashChart
	Orders       []PortalOrder
}

// ChartDay is a day of the month as the chart draws it.
type ChartDay struct {
	Day                              int
	In, Out, ForecastIn, ForecastOut decimal.Decimal
	Balance, ForecastBalance         decimal.Decimal
	Realized                         bool // the day is past or today: its balance is the realized one
}

// CashChart is the month's cash flow drawn as SVG: bars of in (up) and out
// (down) per day, realized and forecast side by side, and the balance line
// (realized until today, forecast after). Every coordinate is computed
// here from the numbers /cash_flow answers.
type CashChart struct {
	// ID tells the chart's title apart from another chart's of the page.
	ID                               string
	Month                            string
	Width, Height, Left, Right, Zero int
	Grid                             []ChartLine
	Bars                             []ChartBar
	Balance, Forecast                string // polyline points
	Ticks                            []ChartTick
}

type ChartLine struct {
	Y     int
	Label string
}

type ChartBar struct {
	X, Y, W, H  int
	Fill, Title string
}

type ChartTick struct {
	X     int
	Label string
}

// NewCashChart lays out the chart of days (one month) titled month,
// width units wide: 720 for a screen, 360 for a phone's (390 px), whose
// ticks are fewer and whose text is as large on its smaller screen.
func NewCashChart(month string, days []ChartDay, width int) CashChart {
	c := CashChart{ID: "grafico-" + strconv.Itoa(width), Month: month, Width: width, Height: 280, Left: 70, Right: width - 10}
	every := 5
	if width < 500 {
		c.Height, c.Left, every = 240, 80, 10
	}
	top, bottom := 12, c.Height-22
	// One scale for bars and balance: from the lowest to the highest of
	// every value drawn, zero included.
	lo, hi := decimal.Zero, decimal.Zero
	for _, d := range days {
		for _, v := range []decimal.Decimal{d.In, d.ForecastIn, d.Balance, d.ForecastBalance} {
			hi = decimal.Max(hi, v)
			lo = decimal.Min(lo, v)
		}
		for _, v := range []decimal.Decimal{d.Out.Neg(), d.ForecastOut.Neg(), d.Balance, d.ForecastBalance} {
			lo = decimal.Min(lo, v)
		}
	}
	// Grid lines at round amounts (1, 2, 2.5 or 5 times a power of ten),
	// the scale widened to whole steps.
	grid := niceStep(hi.Sub(lo).Div(decimal.NewFromInt(4)))
	lo = lo.Div(grid).Floor().Mul(grid)
	hi = hi.Div(grid).Ceil().Mul(grid)
	if hi.Equal(lo) {
		hi = lo.Add(grid)
	}
	span := hi.Sub(lo)
	y := func(v decimal.Decimal) int {
		f := hi.Sub(v).Div(span).InexactFloat64() // a position on screen, not money
		return top + int(f*float64(bottom-top)+0.5)
	}
	c.Zero = y(decimal.Zero)
	for v := lo; v.LessThanOrEqual(hi); v = v.Add(grid) {
		c.Grid = append(c.Grid, ChartLine{Y: y(v), Label: shortBRL(v)})
	}
	n := len(days)
	if n == 0 {
		return c
	}
	step := (c.Right - c.Left) / n
	bw := max(step/2-1, 1)
	var bal, fc []string
	for i, d := range days {
		x := c.Left + i*step
		bar := func(x int, v decimal.Decimal, up bool, fill, what string) {
			if v.IsZero() {
				return
			}
			yv := y(v)
			if !up {
				yv = y(v.Neg())
			}
			top, h := min(yv, c.Zero), abs(yv-c.Zero)
			c.Bars = append(c.Bars, ChartBar{X: x, Y: top, W: bw, H: max(h, 1), Fill: fill,
				Title: fmt.Sprintf("Dia %d: %s %s", d.Day, what, BRL(v.StringFixed(2)))})
		}
		bar(x, d.In, true, "#2e9d5b", "entradas realizadas")
		bar(x+bw, d.ForecastIn, true, "#a8dcbc", "entradas previstas")
		bar(x, d.Out, false, "#d1494e", "saídas realizadas")
		bar(x+bw, d.ForecastOut, false, "#f1b3b5", "saídas previstas")
		px := strconv.Itoa(x+bw) + "," + strconv.Itoa(y(d.ForecastBalance))
		if d.Realized {
			bal = append(bal, strconv.Itoa(x+bw)+","+strconv.Itoa(y(d.Balance)))
		}
		fc = append(fc, px)
		if d.Day == 1 || d.Day%every == 0 {
			c.Ticks = append(c.Ticks, ChartTick{X: x + bw, Label: strconv.Itoa(d.Day)})
		}
	}
	c.Balance, c.Forecast = strings.Join(bal, " "), strings.Join(fc, " ")
	return c
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// niceStep is the round amount (1, 2, 2.5 or 5 times a power of ten, at
// least R$ 1) nearest above rough.
func niceStep(rough decimal.Decimal) decimal.Decimal {
	step := decimal.NewFromInt(1)
	for {
		for _, m := range []string{"1", "2", "2.5", "5"} {
			c := decimal.RequireFromString(m).Mul(step)
			if c.GreaterThanOrEqual(rough) {
				return c
			}
		}
		step = step.Mul(decimal.NewFromInt(10))
	}
}

// shortBRL labels an axis: "R$ 12 mil", "R$ 2,5 mil", "R$ 1,5 mi", "R$ 800".
func shortBRL(v decimal.Decimal) string {
	a := v.Abs()
	sign := ""
	if v.IsNegative() {
		sign = "-"
	}
	switch {
	case a.GreaterThanOrEqual(decimal.NewFromInt(1_000_000)):
		return sign + "R$ " + strings.Replace(a.Div(decimal.NewFromInt(1_000_000)).StringFixed(1), ".", ",", 1) + " mi"
	case a.GreaterThanOrEqual(decimal.NewFromInt(1_000)):
		return sign + "R$ " + strings.Replace(a.Div(decimal.NewFromInt(1_000)).String(), ".", ",", 1) + " mil"
	}
	return sign + "R$ " + a.StringFixed(0)
}

// MonthBR names a month in Portuguese: "novembro de 2026".
func MonthBR(year, month int) string {
	names := [...]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"}
	if month < 1 || month > 12 {
		return strconv.Itoa(year)
	}
	return names[month-1] + " de " + strconv.Itoa(year)
}

// PortalOrders is the orders page's body.
type PortalOrders struct {
	Month    string // YYYY-MM
	From, To string // YYYY-MM-DD, when a period other than a month was asked
	Code     string // the order code searched
	// Customer is the text searched in the customers' names.
	Customer string
	Orders   []PortalOrder
	Pager    Pager
}

// PortalCharge is a charge on an order's page.
type PortalCharge struct {
	Installment                     int
	Method, DueDate, Amount, Status string
	BoletoLine, Pix                 string
	// ManualBoleto: a boleto of no collection provider, which the firm
	// prints itself (it has no line here). Reschedulable: an open boleto
	// of a bank agreement the office may give a new due date.
	ManualBoleto, Reschedulable bool
	// Refunded is what the PSP gave back of its payment ("" none).
	Refunded string
	// Held are the Pix paid for it of another amount than it asked.
	Held []PortalHeldPix
	// Parts say what statement lines paid of it while open ("05/11/2026:
	// R$ 400,00"), Rest what is left of it ("" none paid).
	Parts []string
	Rest  string
	// BoletoURL and BoletoPDF are its printable boleto and its PDF, once
	// the bank registered it ("" otherwise).
	BoletoURL, BoletoPDF string
}

// PortalHeldPix is a Pix of another amount than its charge asked: Held
// for a decision (Keepable when it is less and the charge still open),
// else kept towards the charge.
type PortalHeldPix struct {
	EndToEndID, Day, Amount, Asked, Difference string
	Held, Keepable                             bool
}

// PortalOrderPage is an order's page.
type PortalOrderPage struct {
	Token, Code, Customer, Description, Total, Date, PaymentType string
	ChargeStatus, PaymentURL                                     string
	Charges                                                      []PortalCharge
	// Refundable says a charge was paid at the unit's PSP and not all
	// given back: the page offers its refund.
	Refundable bool
	// The actions possible now: charge (no live charge), cancel the
	// charges (some open), issue the invoice (none authorized), cancel it
	// (authorized).
	Chargeable, ChargeCancellable, Invoiceable, InvoiceCancellable bool
	Invoice, InvoiceNumber, DANFEURL                               string
	// NFStatus is what the order says of its invoice (nf_status_text),
	// such as the authority's refusal.
	NFStatus string
	// Correctable says the invoice is an authorized NF-e, which takes a
	// correction letter; Events are what its authority registered on it.
	Correctable bool
	// Substitutable says the invoice is an authorized NFC-e, which past
	// its cancellation window is cancelled by substitution.
	Substitutable bool
	Events        []PortalInvoiceEvent
	// Lines are what the customer bought (a service order: its service),
	// Freight the freight charged ("" none), Billed what the order bills
	// with it; Taxes what its invoice states (or a service's ISS and
	// retentions), History what was done to it, by whom and when.
	Lines   []PortalOrderItem
	Freight string
	Billed  string
	Taxes   []PortalTax
	History []PortalHistory
}

// PortalOrderItem is a line of an order as sold.
type PortalOrderItem struct{ Code, Description, Quantity, Unit, UnitValue, Total string }

// PortalTax is a tax an order's invoice states, and its amount.
type PortalTax struct{ Name, Amount string }

// PortalHistory is something done to an order: when, by whom, what.
type PortalHistory struct{ When, Who, What string }

// PortalInvoiceEvent is an event registered on an order's invoice: the
// address of its document (none without a public token) and a
// correction letter's text.
type PortalInvoiceEvent struct{ Name, Protocol, Date, XMLURL, Text string }

// PortalOption is a choice of a select.
type PortalOption struct {
	Value, Label string
	// Data is what the page's script knows the option by ("" none): an
	// item's kind (product, service), a category's sales group (goods,
	// services).
	Data string
}

// PortalLog is a read-only list page (outbox, webhook deliveries, audit).
type PortalLog struct {
	Heading, Intro string
	Columns        []string
	Rows           [][]string
	// Search is the text searched in the rows; Pager their page.
	Search string
	Pager  Pager
}

// PortalOverdue is the overdue receivables' page body.
type PortalOverdue struct {
	Search string // the text searched in the customers' names
	Rows   []PortalOverdueRow
	Total  string
	// Reminders is how many orders a bulk reminder reaches: those with an
	// overdue charge and the address it goes to.
	Reminders int
	// Truncated: more rows than the page shows (the oldest are shown).
	Truncated bool
	// FormKey is the reminders form's one-time key.
	FormKey string
}

// PortalOverdueRow is one overdue receivable: an installment's charge, or
// an order without a charge.
type PortalOverdueRow struct {
	Token, Code, Customer, DueDate, Amount, Channel string
	Installment, DaysLate                           int
	// Charge: an open charge, which a reminder sends again; Email: the
	// order has where to send it.
	Charge, Email bool
}

// PortalImport is the imports' page body: the forms, and the outcome of
// the file just sent.
type PortalImport struct {
	Accounts []PortalOption
	Result   *PortalImportResult
}

// PortalImportResult is what a file did: a summary and each line's fate.
type PortalImportResult struct {
	Title string
	// Files: each row is a file of the upload, not a line of one.
	Files   bool
	Summary []Labelled
	Rows    []PortalImportRow
}

// PortalImportRow is one line of a file (or one file) and what became of it.
type PortalImportRow struct{ What, Outcome, Detail string }

// PortalContacts is the customers' and suppliers' page body: the list
// (searched), and the form of a new one, filled again after a refusal
// with the field at fault named beside it.
type PortalContacts struct {
	Search   string
	Kind     string // customer, supplier: the list keeps those (and both)
	Contacts []PortalContactRow
	Pager    Pager
	Form     PortalContactForm
	FormState
}

// PortalContactRow is a contact as the list shows it.
type PortalContactRow struct{ Token, Name, Register, Email, Phone string }

// PortalContact is a contact's edit page body: its form as stored, or as
// typed after a refusal.
type PortalContact struct {
	Token string
	Form  PortalContactForm
	FormState
}

// PortalContactForm holds a contact's fields as typed.
type PortalContactForm struct {
	Type, Register, Name, FantasyName, Email, Phone, Zip, Address, Number, Complement, District, City, State, IE, Contributor string
	// Kind is customer, supplier or "" (both).
	Kind string
	Key  string // the new contact form's one-time key
}

// PortalField is a form field as portal_contact_field draws it: its
// refusal beside it when it is the one at fault.
type PortalField struct {
	Name, Label, Value, Type, Error string
	Required                        bool
	// Check is what the portal's script checks as it is typed: register
	// (a CPF's or CNPJ's check digits), cep (fills the state and offers
	// its cities), city.
	Check string
	// InputMode is the keyboard a phone shows for it ("" its type's).
	InputMode string
}

// inputModes are the phone keyboards of the portal's fields, by name:
// amounts and rates decimal, documents, codes and CEPs numeric.
var inputModes = map[string]string{"price": "decimal", "value": "decimal", "amount": "decimal", "freight_total": "decimal", "iss_rate": "decimal",
	"icms-rate": "decimal", "pis-rate": "decimal", "cofins-rate": "decimal", "register": "numeric", "cnpj": "numeric", "zip": "numeric",
	"ncm": "numeric", "cfop": "numeric", "cnae": "numeric", "gtin": "numeric", "csc-id": "numeric", "usage_type": "numeric",
	"ibs_cbs_cst": "numeric", "ibs_cbs_class": "numeric", "ibs_cbs_operation": "numeric", "barcode": "numeric", "service_code": "decimal"}

// PortalProducts is the products' and services' page body: the list
// (searched) and the form of a new one, as PortalContacts.
type PortalProducts struct {
	Search   string
	Products []PortalProductRow
	Pager    Pager
	Form     PortalProductForm
	FormState
}

// PortalProductRow is a product or service as the list shows it.
type PortalProductRow struct{ Token, Code, Description, Kind, Price, NCM, CFOP, Unit, Class string }

// PortalContracts is the contracts' page body: the list (searched, paged)
// with each document's link, and the form of a new contract from a
// template.
type PortalContracts struct {
	// Editing is the contract whose form this is (its page), Status its
	// status; empty on the list's page.
	Editing, Status     string
	Search              string
	Contracts           []PortalContractRow
	Pager               Pager
	Templates, Contacts []PortalOption
	Form                PortalContractForm
	FormState
}

// PortalContractRow is a contract as the list shows it; Document: it has
// a template to render.
type PortalContractRow struct {
	Token, Name, Customer, Status, Start, End, Recurrence string
	Document                                              bool
	// Actions are the statuses it may move to (a draft comes into force
	// or is cancelled; a contract in force is cancelled).
	Actions []PortalContractAction
}

// PortalContractAction is a status a contract may be moved to, and the
// button's words.
type PortalContractAction struct{ Token, Status, Label string }

// PortalContractForm holds a new contract's fields as typed.
type PortalContractForm struct {
	Template, Contact, Name, Start, End, Recurrence, Description string
	AutoExtend                                                   bool
	Key                                                          string // the new contract form's one-time key
}

// PortalProduct is a product's edit page body, as PortalContact.
type PortalProduct struct {
	Token string
	Form  PortalProductForm
	FormState
}

// PortalProductForm holds a product's fields as typed.
type PortalProductForm struct {
	Type, Description, Code, Price, Unit, NCM, CFOP, Usage, CST, Class, Operation, GTIN string
	Key                                                                                 string // the new product form's one-time key
}

// PortalNewOrder is the new sales order's page body: the choices of the
// unit's registers and the fields as typed after a refusal.
type PortalNewOrder struct {
	Contacts, Categories, Methods, Accounts []PortalOption
	// Banks are the provider slots a boleto is charged through, each
	// named by the bank of the unit's agreement behind it.
	Banks []PortalOption
	// Items are the products and services a line is chosen among by
	// typing (a datalist: code, name, GTIN).
	Items []PortalItemChoice
	// FreightModes are the NF-e's modFrete, as the office reads them.
	FreightModes []PortalOption
	Form         PortalOrderForm
	FormState
}

// PortalItemChoice is a product or service as an order's line offers it:
// Text is what a person types or picks ("CODE · Name"), Price its price
// (a decimal with a point, for the page's script) and PriceBR as read.
type PortalItemChoice struct {
	Text, Price, PriceBR, Kind string
}

// PortalOrderForm holds a new order's fields as typed.
type PortalOrderForm struct {
	Contact, Description, Date, Category, Method, Provider, Account, Installments, Invoice, Email string
	// Lines are the items sold, as typed (empty ones included).
	Lines []PortalOrderLine
	// A service's NFS-e: its LC 116 list item and ISS rate.
	ServiceCode, ISSRate string
	// An NF-e's or NFC-e's freight: its mode (modFrete) and total.
	FreightMode, FreightTotal string
	Charge, Issue, Recurrence bool
	// Key is the form's one-time key: sent again, it makes nothing twice.
	Key string
}

// PortalOrderLine is an item line of the new order's form.
type PortalOrderLine struct{ Item, Quantity string }

// PortalSelect is a select of a form.
type PortalSelect struct {
	Name, Label, Value, Error string
	Options                   []PortalOption
}

// FormState is a form's field at fault after a refusal, and why; the
// portal's form bodies embed it.
type FormState struct {
	Field, FieldError string
}

// ErrorFor is why the field name is at fault, for templates (a row's
// fields, named item-1, …).
func (f FormState) ErrorFor(name string) string { return f.errorOf(name) }

// errorOf is why the field name is at fault, or "".
func (f FormState) errorOf(name string) string {
	if f.Field == name {
		return f.FieldError
	}
	return ""
}

// form is a body with a FormState.
type form interface{ errorOf(string) string }

// fieldOf is the input name of a form, its refusal beside it when it is
// the one at fault.
func fieldOf(b form, name, label, value, typ, required string) PortalField {
	return PortalField{Name: name, Label: label, Value: value, Type: typ, Required: required == "required", Error: b.errorOf(name), InputMode: inputModes[name]}
}

// checkedAs is the field f checked by the portal's script as kind.
func checkedAs(f PortalField, kind string) PortalField {
	f.Check = kind
	return f
}

// selectOf is the select name of a form, as fieldOf.
func selectOf(b form, name, label string, options []PortalOption, value string) PortalSelect {
	return PortalSelect{Name: name, Label: label, Value: value, Options: options, Error: b.errorOf(name)}
}

// Pager is a long list's page: its number, how many there are, how many
// rows in all, and the links to the previous and next (empty at the ends).
type Pager struct {
	Page, Pages, Total int
	Prev, Next         string
}

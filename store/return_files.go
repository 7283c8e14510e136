package store

// ReturnEvent is one title's movement in a bank's return file, as package
// bank reads it.
type ReturnEvent struct {
	Line         int
	Event        string // registered, paid, rejected, written_off, other
	Movement     string
	MovementText string
	OurNumber    int64
	Paid         Money
	Fee          Money
	Occurred     string // YYYY-MM-DD
	Credited     string
	Reason       string
}

// ReturnLine is what importing a return file did with one of its lines.
type ReturnLine struct {
	Line      int    `json:"line" doc:"The line's number in the file."`
	OurNumber int64  `json:"our_number" doc:"The boleto's number at its bank (nosso número)."`
	Movement  string `json:"movement" doc:"The bank's movement code."`
	// Outcome: registered, rejected, paid, written_off, already_paid,
	// unknown_charge (no charge has the our-number: reported, not
	// dropped), not_settled (a payment dated after today or not dated),
	// ignored (a movement that changes nothing).
	Outcome     string `json:"outcome" enum:"registered,rejected,paid,written_off,already_paid,unknown_charge,not_settled,ignored" doc:"What the line did: registered, rejected, paid, written_off, already_paid, unknown_charge (no charge has the number: reported, not dropped), not_settled (a payment dated after today or not dated) or ignored."`
	ChargeToken Text   `json:"charge_token" doc:"The charge it is of; null when none."`
	Detail      string `json:"detail" doc:"Its particulars, in words."`
}

// ReturnReport is the outcome of a return file.
type ReturnReport struct {
	Provider string `json:"provider" doc:"The bank the file is of."`
	// Duplicate: the same file was imported before; nothing changed and
	// the first import's report is answered.
	Duplicate bool         `json:"duplicate" doc:"true: the same file was imported before; nothing changed and the first import's report is answered."`
	Lines     []ReturnLine `json:"lines" doc:"Each line's outcome."`
	// Payments are the payments the file confirmed, for the invoices
	// they make due.
	Payments []Payment `json:"-"`
}

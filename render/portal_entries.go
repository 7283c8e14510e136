package render

// The bodies of the entries' and the statement's pages.

// PortalEntry is an entry on the transactions page.
type PortalEntry struct {
	Token, Type, Description, DueDate, PayDay, Contact, Account, Value string
}

// PortalEntryEdit is an entry's edit page body: its form (its type
// fixed), its categories of that type, when it was paid, and its
// attachments' names.
type PortalEntryEdit struct {
	Token, PayDay        string
	Form                 PortalEntryForm
	Categories           []PortalOption
	Suppliers, Customers []string
	// Recurrence says how the entry repeats ("" when it does not);
	// Repeating: it still does, and can be stopped.
	Recurrence string
	Repeating  bool
	// Instalment is the entry's place in its group ("2 de 3"; "" none),
	// Group the group's other instalments.
	Instalment string
	Group      []PortalEntry
	Files      []PortalFile
	FormState
}

// PortalFile is an entry's attachment: its name, its size in words and
// its token (its address under the entry's).
type PortalFile struct{ Token, Name, Size string }

// PortalAccount is a bank account a payment may go to.
type PortalAccount struct{ Token, Name string }

// PortalTransactions is the transactions page's body.
type PortalTransactions struct {
	Month, Today string // YYYY-MM, YYYY-MM-DD
	From, To     string // YYYY-MM-DD, when a period other than a month was asked
	Type         string // in, out or "" (both)
	Search       string // the text searched in descriptions and contacts
	Entries      []PortalEntry
	Pager        Pager
	Accounts     []PortalAccount
	// The new entry's form: the unit's categories of each direction, the
	// fields as typed after a refusal, and the field at fault.
	InCategories, OutCategories []PortalOption
	// Suppliers and Customers are the contacts the form's contact field
	// offers for a bill and for an income.
	Suppliers, Customers []string
	Form                 PortalEntryForm
	FormState
}

// PortalEntryForm holds a new bill's or income's fields as typed.
type PortalEntryForm struct {
	Type, Description, Value, DueDate, Category, Barcode string
	// Contact is whom the entry is owed to or by, as typed or picked
	// ("Name · CPF/CNPJ").
	Contact string
	// Installments splits a new entry: 1 (or "") none, 2 to 48 parts due
	// monthly from its due date.
	Installments string
	// InstallmentDates are the instalments' due dates as typed
	// (DD/MM/AAAA, by commas or spaces); none: monthly.
	InstallmentDates string
	// Repeat makes a new entry repeat every so many months ("" none),
	// RepeatTimes times in all or until RepeatUntil (YYYY-MM-DD).
	Repeat, RepeatTimes, RepeatUntil string
	// Key is the new entry form's one-time key: sent again, it makes
	// nothing twice.
	Key string
}

// PortalLine is a statement line waiting for a person.
type PortalLine struct {
	Token, Date, Amount, Memo string
	Credit                    bool
	// Options are the open entries and charges of its direction it may
	// be paired with, best first; Exact: the first is of the line's
	// amount, preselected (no other is: a pairing of another amount is
	// the person's choice, never the page's).
	Options []PortalOption
	Exact   bool
	// Items are the single entries and charges it may pay several of at
	// once, ticked.
	Items []PortalOption
	// Category is the category its booking preselects: a bank's tariff
	// its fees', a yield its investments' ("" none).
	Category string
}

// PortalResolved is a statement line already matched or dismissed: what
// it was paired with, how (automática, manual), and whether it can be
// undone.
type PortalResolved struct {
	Token, Date, Amount, Memo, What, How string
	Credit, Undo                         bool
}

// PortalStatement is the reconciliation page's body.
type PortalStatement struct {
	Lines []PortalLine
	// Resolved are the latest lines matched or dismissed, to review and
	// undo.
	Resolved []PortalResolved
	// InCategories and OutCategories are the unit's categories a credit
	// and a debit may be booked in.
	InCategories, OutCategories []PortalOption
	// Pager is the open lines' page.
	Pager Pager
}

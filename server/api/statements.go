package api

import (
	"errors"
	"net/http"

	"fincom/server/statement"
	"fincom/server/web"
	"fincom/store"
)

// statements handles the routes of bank statements (routes.go).
type statements struct{ *API }

// The routes of statement reconciliation (fincom routes): a bank
// account's OFX statement in, its lines matched to what they settle, the
// rest paired or dismissed by a person.

var (
	errNotOFX       = web.NewError(http.StatusBadRequest, "Not an OFX bank statement: nothing was imported.")
	errNotReais     = web.NewError(http.StatusUnprocessableEntity, "The statement is not in reais (CURDEF BRL): nothing was imported.")
	errLineNotFound = web.NewError(http.StatusNotFound, "Statement line not found.")
	errOtherAccount = web.NewError(http.StatusUnprocessableEntity, "The file holds no statement of this bank account (details.accounts lists those it holds): nothing was imported.")
)

type importOFXRequest struct {
	BankAccount string `json:"id_token_bank_account" required:"true"`
}

// importOFX imports one OFX file (multipart: metadata with the tokens and
// id_token_bank_account, the file as files).
func (s statements) importOFX(r *web.Request, q *importOFXRequest) (any, error) {
	switch len(r.Body.Files) {
	case 0:
		return nil, web.ErrNoFiles
	case 1:
	default:
		return nil, errOneFile
	}
	f := r.Body.Files[0]
	if f.TooLarge {
		return nil, web.ErrFileTooLarge
	}
	rep, err := s.Billing.ImportStatement(r.Ctx, r.DB, r.Unit.ID, q.BankAccount, f.Data)
	if errors.Is(err, statement.ErrNotOFX) {
		e := *errNotOFX
		e.Details = map[string]string{"reason": err.Error()}
		return nil, &e
	}
	var other *statement.OtherAccountError
	switch {
	case errors.As(err, &other):
		return nil, errOtherAccount.With(accountsFound{Accounts: other.Found})
	case errors.Is(err, statement.ErrCurrency):
		e := *errNotReais
		e.Details = map[string]string{"reason": err.Error()}
		return nil, &e
	case err != nil:
		return nil, err
	}
	return web.WithMessage{Message: "Statement imported.", Data: rep}, nil
}

// accountsFound names the accounts an OFX file holds when none is the
// chosen one.
type accountsFound struct {
	Accounts []string `json:"accounts"`
}

type statementLinesRequest struct {
	BankAccount string `json:"id_token_bank_account"`
	Status      string `json:"status" enum:"open,matched,dismissed" doc:"Only lines of this status."`
	web.PageRequest
}

func (s statements) listStatementLines(r *web.Request, q *statementLinesRequest) (any, error) {
	pg := q.StorePage()
	lines, total, err := r.DB.StatementLines(r.Ctx, r.Unit.ID, q.BankAccount, q.Status, pg)
	return web.PageOf(lines, total, pg, err)
}

type reconcileRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true" doc:"The statement line's token."`
	// Action: match (with id_token_entry, id_token_sales_order and
	// installment, or items), book (as a new entry of id_token_category,
	// with description), dismiss, or undo (reopen a resolved line).
	Action      string       `json:"action" enum:"match,book,dismiss,undo" required:"true" doc:"match (pair with an entry, an order's charge, or several: items), book (record a new entry from the line), dismiss, or undo (fincom: reopen a matched or dismissed line, undoing what it did)."`
	Entry       string       `json:"id_token_entry"`
	SalesOrder  string       `json:"id_token_sales_order"`
	Installment *web.FlexInt `json:"installment" doc:"The order's installment paid (match with id_token_sales_order; default: the first open)."`
	Items       []lineItem   `json:"items" doc:"fincom: the entries and charges the line pays at once (match, instead of id_token_entry or id_token_sales_order; at most 50): their amounts, each charge at what it asks on the line's day (with its fine and interest when late, or all at their principal), add up to the line's, or, with id_token_difference_category, the difference is booked."`
	Difference  string       `json:"id_token_difference_category" doc:"fincom: pairs the line (match) with an entry, a charge or items of another amount: each is paid at its own (a charge at its principal) and the difference (the line's less theirs) booked as an entry of this category (an income category when it adds to the account: interest or a fine received, a discount obtained; an expense one when it takes: interest, a fee, a discount given), paid on the line's day; undone together."`
	Partial     bool         `json:"partial" doc:"fincom: a line smaller than the entry or charge (match with id_token_entry or id_token_sales_order) pays part of it: an entry keeps the line's amount, paid, and the rest stays open as an entry of its own; a charge stays open for the rest, the part received towards it and booked as an income; undone together."`
	Category    string       `json:"id_token_category"`
	Description string       `json:"description" max:"short" doc:"The booked entry's description (default: the line's memo)."`
}

// lineItem is one of the items a line pays at once.
type lineItem struct {
	Entry       string       `json:"id_token_entry" doc:"An unpaid entry of the line's direction."`
	SalesOrder  string       `json:"id_token_sales_order" doc:"An order whose open charge the line pays (a credit)."`
	Installment *web.FlexInt `json:"installment" doc:"The order's installment (default: the first open)."`
}

var errBookCategory = web.NewError(http.StatusBadRequest, "To book a statement line give its id_token_category (an income category for a credit, an expense category for a debit).")

func (q *reconcileRequest) Validate() error {
	named := 0
	for _, set := range []bool{q.Entry != "", q.SalesOrder != "", len(q.Items) > 0} {
		if set {
			named++
		}
	}
	if q.Action == "match" && named != 1 {
		return web.ErrReconcileWhat
	}
	for _, it := range q.Items {
		if (it.Entry == "") == (it.SalesOrder == "") {
			return web.ErrReconcileWhat
		}
	}
	if len(q.Items) > store.MaxLineItems {
		return store.ErrLineItemsMany
	}
	if q.Action == "book" && q.Category == "" {
		return errBookCategory
	}
	return nil
}

func (s statements) reconcileStatementLine(r *web.Request, q *reconcileRequest) (any, error) {
	if q.Action == "undo" {
		l, err := s.Billing.UndoReconciliation(r.Ctx, r.DB, r.Unit.ID, q.IDToken)
		if err != nil {
			return nil, err
		}
		return web.WithMessage{Message: "Statement line reopened.", Data: l}, nil
	}
	rc := store.Reconciliation{LineToken: q.IDToken, Dismiss: q.Action == "dismiss"}
	if q.Action == "book" {
		rc.Book = &store.Booking{CategoryToken: q.Category, Description: q.Description}
	} else if !rc.Dismiss {
		rc.EntryToken, rc.OrderToken, rc.Partial = q.Entry, q.SalesOrder, q.Partial
		if q.Difference != "" && !q.Partial {
			rc.Difference = &store.Booking{CategoryToken: q.Difference}
		}
		if q.Installment != nil {
			rc.Installment = int(*q.Installment)
		}
		for _, it := range q.Items {
			li := store.LineItem{EntryToken: it.Entry, OrderToken: it.SalesOrder}
			if it.Installment != nil {
				li.Installment = int(*it.Installment)
			}
			rc.Items = append(rc.Items, li)
		}
	}
	l, err := s.Billing.Reconcile(r.Ctx, r.DB, r.Unit.ID, rc)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Statement line " + l.Status + ".", Data: l}, nil
}

const (
	docImportOFX = "Imports a bank account's statement (multipart: `metadata` with the tokens and `id_token_bank_account`, one OFX file as " +
		"`files`: OFX 1.x SGML, Windows-1252 or not, and 2.x XML as Brazilian banks export them). Each line counts once by its FITID " +
		"(`repeated` on a second import). A credit is matched to an open charge or unpaid income of the same amount, a debit to an " +
		"unpaid expense: the same date first, else the single nearest due date within 5 days; two equally near leave the line open. " +
		"A match settles the charge (a confirmed payment's effects) or pays the entry on the line's date into the account, and " +
		"reconciles it (`conciliation_date`, `id_ofx` in /transactions). Unmatched lines stay `open` (/list_statement_lines). Only " +
		"the account's statements are read: the file's BANKID and ACCTID must be the account's bank and account (leading zeros, " +
		"agency and digit aside) and CURDEF BRL; a file with no statement of it is refused (422, `details.accounts` naming those it holds)."
	docListStatementLines = "The unit's statement lines, by date: of one account (`id_token_bank_account`) and status (`open`, " +
		"`matched`, `dismissed`) when given, each with what it matched."
	docReconcileStatementLine = "A person's decision on an open statement line (`id_token`): `match` it with an unpaid entry of its " +
		"amount and direction (`id_token_entry`), with an order's open charge (`id_token_sales_order`, `installment`) of what it asks " +
		"on the line's day (its amount; for a boleto registered with a bank or a PIX with due date paid late, with its 2 % fine and " +
		"1/30 % a day of interest, booked apart from the principal), or with several (`items`); `partial` pays part of an entry or " +
		"charge, `id_token_difference_category` books a difference; `book` it as a new entry in one step (`id_token_category`, of " +
		"the line's direction: an income for a credit, an expense for a debit such as a bank fee; `description`, the line's memo when " +
		"absent), paid on the line's day from its account; `dismiss` it (a transfer between the firm's accounts); or `undo` a " +
		"resolved line: what it did is undone together (a charge it paid is open again, `charge.reopened`; the parts split, the " +
		"differences booked)."
)

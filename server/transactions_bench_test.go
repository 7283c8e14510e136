package server

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/api"
	"fincom/store"
)

// monthEntries is how many entries each month holds, whatever the
// history's size.
const monthEntries = 1_000

// seedEntries gives unit A monthEntries entries in November 2026 through
// the store (a third income, half paid) and months-1 earlier months of
// copies of them.
func seedEntries(b *testing.B, months int) (*Server, string) {
	b.Helper()
	s, ds := newTestServer(b)
	ctx := context.Background()
	db, release := acquire(b, ds)
	units, _ := db.Units(ctx)
	last := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for i := 0; i < monthEntries; i++ {
		typ := "out"
		if i%3 == 0 {
			typ = "in"
		}
		due := last.AddDate(0, 0, -(i % 30)).Format(time.DateOnly)
		f := store.EntryFields{Type: typ, Description: fmt.Sprintf("Lançamento %d", i), DueDate: due, CompetenceDate: due, Active: true,
			Value: store.NewMoney(decimal.New(int64(1000+i*37%50000), -2)), ContactToken: fx.tokens["contact1"]}
		if i%2 == 0 {
			f.PayDay, f.BankAccountToken = due, fx.tokens["account1"]
		}
		if _, err := db.InsertEntry(ctx, units[0].ID, f, nil, ""); err != nil {
			b.Fatal(err)
		}
	}
	release()
	path := filepath.Join(ds.Dir(), "acme.db")
	copyHistory(b, ds, path, "entries", months-1, map[string]string{
		"token":           `token || '-h$k'`,
		"due_date":        `date(due_date, '-$k months')`,
		"pay_day":         `date(pay_day, '-$k months')`,
		"competence_date": `date(competence_date, '-$k months')`,
	})
	return s, path
}

var transactionsMonth = `,"from_date":"2026-11-01","to_date":"2026-11-30"`

// BenchmarkTransactions lists November 2026 (1,000 entries) through the
// real handler, alone and among 100,000 entries: the month's cost must
// not grow with the history (index entries_unit_due).
func BenchmarkTransactions(b *testing.B) {
	for _, months := range []int{1, 100} {
		s, _ := seedEntries(b, months)
		h := s.Handler()
		body := `{` + expand(auth) + transactionsMonth + `}`
		b.Run(fmt.Sprintf("month_of_%d", months*monthEntries), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchPost(b, h, "/transactions", body)
				}
			})
		})
	}
}

// bareTransaction is a Transaction in plain types.
type bareTransaction struct {
	ID                string  `json:"id"`
	IDUser            *string `json:"id_user"`
	AccessKey         *string `json:"access_key"`
	UserName          *string `json:"user_name"`
	CompanyName       string  `json:"company_name"`
	EntityName        *string `json:"entity_name"`
	CreatedDate       string  `json:"created_date"`
	Description       string  `json:"description"`
	Barcode           *string `json:"barcode"`
	DueDate           string  `json:"due_date"`
	PayDay            *string `json:"pay_day"`
	CompetenceDate    *string `json:"competence_date"`
	Value             string  `json:"value"`
	Type              string  `json:"type"`
	Category          *string `json:"category"`
	Note              *string `json:"note"`
	Active            bool    `json:"active"`
	DataBank          *string `json:"data_bank"`
	Private           bool    `json:"private"`
	IDTokenUnit       string  `json:"id_token_unit"`
	ActionStatus      string  `json:"action_status"`
	Status            string  `json:"status"`
	NickNameBank      *string `json:"nick_name_bank"`
	Wallet            *string `json:"wallet"`
	ActiveRemittances bool    `json:"active_remittances"`
	IDOfx             *string `json:"id_ofx"`
	ConciliationDate  *string `json:"conciliation_date"`
	ContactName       *string `json:"contact_name"`
	KeyMethodCredor   *string `json:"key_method_credor"`
}

// BenchmarkTransactionsBaseline runs store.Transactions' SQL and the same
// answer with database/sql and encoding/json alone.
func BenchmarkTransactionsBaseline(b *testing.B) {
	for _, months := range []int{1, 100} {
		s, path := seedEntries(b, months)
		db := bareDB(b, path, false)
		sameAnswer(b, s.Handler(), "/transactions", `{`+expand(auth)+transactionsMonth+`}`, bareTransactions(b, db))
		b.Run(fmt.Sprintf("month_of_%d", months*monthEntries), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					bareTransactions(b, db)
				}
			})
		})
	}
}

func bareTransactions(b *testing.B, db *sql.DB) []byte {
	var unitName, unitToken string
	if err := db.QueryRow(`SELECT name, token FROM units WHERE id = ?`, 1).Scan(&unitName, &unitToken); err != nil {
		b.Fatal(err)
	}
	rows, err := db.Query(`
		SELECT e.token, us.token, e.access_key, us.name, e.unit_id, COALESCE(c.social_reason, c.display_name), e.created_at,
			e.description, e.barcode, e.due_date, e.pay_day, e.competence_date, e.value, e.type, cat.name, e.note, e.active,
			c.data_bank, e.private, ba.nick_name, pm.payment_key, e.id_ofx, e.conciliation_date, c.display_name,
			e.key_method_credor
		FROM entries e
		LEFT JOIN users us ON us.id = e.user_id
		LEFT JOIN contacts c ON c.id = e.contact_id
		LEFT JOIN categories cat ON cat.id = e.category_id
		LEFT JOIN bank_accounts ba ON ba.id = e.bank_account_id
		LEFT JOIN payment_methods pm ON pm.id = e.payment_method_id
		WHERE e.unit_id IN (?) AND e.due_date BETWEEN ? AND ?
		ORDER BY e.due_date, e.id`, 1, "2026-11-01", "2026-11-30")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := []bareTransaction{}
	for rows.Next() {
		var t bareTransaction
		var created string
		var unitID int64
		if err := rows.Scan(&t.ID, &t.IDUser, &t.AccessKey, &t.UserName, &unitID, &t.EntityName, &created,
			&t.Description, &t.Barcode, &t.DueDate, &t.PayDay, &t.CompetenceDate, &t.Value, &t.Type, &t.Category, &t.Note,
			&t.Active, &t.DataBank, &t.Private, &t.NickNameBank, &t.Wallet, &t.IDOfx, &t.ConciliationDate,
			&t.ContactName, &t.KeyMethodCredor); err != nil {
			b.Fatal(err)
		}
		t.CompanyName, t.IDTokenUnit = unitName, unitToken
		if c, err := time.Parse(time.RFC3339, created); err == nil {
			t.CreatedDate = c.In(api.SaoPaulo).Format(time.RFC3339)
		}
		t.Status, t.ActionStatus = bareStatus(t.Active, t.PayDay, t.DueDate, t.Type)
		out = append(out, t)
	}
	return bareWrite(b, bareData{true, out})
}

// bareStatus is the entry's status and action, as plainly as it goes.
func bareStatus(active bool, payDay *string, due, typ string) (string, string) {
	switch {
	case !active:
		return "cancelled", "cancelled"
	case payDay != nil && typ == "in":
		return "paid", "received"
	case payDay != nil:
		return "paid", "paid"
	}
	status := "open"
	if due < "2026-11-22" {
		status = "overdue"
	}
	if typ == "in" {
		return status, "to_receive"
	}
	return status, "to_pay"
}

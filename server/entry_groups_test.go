package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestEntryGroupsAPI: /insert_expense splits a purchase in instalments
// (to the cent, the first's token answered) and makes a repeating rent;
// /cancel_entry_group cancels the open instalments, the paid one stays;
// /stop_entry_recurrence stops the rent; each refuses an entry of neither,
// and a split that is also a repetition.
func TestEntryGroupsAPI(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	first := post(t, h, "/insert_expense", `{`+auth+`,"description":"Compra","value":"1000.00","due_date":"2026-12-10","installments":3,"id_token_contact":"{{contact1}}"}`)["token"].(string)
	post(t, h, "/update_expense", `{`+auth+`,"id_token":"`+first+`","pay_day":"2026-12-10","id_token_bank_account":"{{account1}}"}`)
	open := func(prefix string) (n int, total string) {
		db, release := acquire(t, ds)
		defer release()
		all, err := db.EntrySummaries(context.Background(), 1, "2026-01-01", "2028-12-31", "out", 1000)
		if err != nil {
			t.Fatal(err)
		}
		var values []string
		for _, e := range all {
			if strings.HasPrefix(e.Description, prefix) {
				n++
				values = append(values, e.Value.StringFixed(2))
			}
		}
		return n, strings.Join(values, " ")
	}
	if n, values := open("Compra "); n != 3 || values != "333.33 333.33 333.34" {
		t.Fatalf("the instalments: %d %s", n, values)
	}
	dated := post(t, h, "/insert_income", `{`+auth+`,"description":"Projeto","value":"100.00","due_date":"2026-12-01","installments":2,"installment_dates":["2026-12-20","2027-02-20"]}`)["token"].(string)
	db, release := acquire(t, ds)
	group, err := db.EntryGroup(context.Background(), 1, dated)
	release()
	if err != nil || len(group) != 2 || group[0].DueDate != "2026-12-20" || group[1].DueDate != "2027-02-20" || group[1].Value.StringFixed(2) != "50.00" {
		t.Fatalf("the dated instalments: %+v %v", group, err)
	}
	got := post(t, h, "/cancel_entry_group", `{`+auth+`,"id_token":"`+first+`"}`)
	if got["message"] != "2 open instalments cancelled." {
		t.Fatalf("cancel_entry_group: %v", got)
	}
	if n, values := open("Compra "); n != 1 || values != "333.33" {
		t.Fatalf("after the cancellation: %d %s", n, values)
	}
	rent := post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel","value":"2500.00","due_date":"2026-12-05","recurrence_every_months":1,"recurrence_until":"2027-12-05"}`)["token"].(string)
	if got := post(t, h, "/stop_entry_recurrence", `{`+auth+`,"id_token":"`+rent+`"}`); got["message"] != "Recurrence stopped." {
		t.Fatalf("stop_entry_recurrence: %v", got)
	}
	for _, c := range []struct{ path, body, want string }{
		{"/stop_entry_recurrence", `{` + auth + `,"id_token":"` + rent + `"}`, "Entry not found, or repeating nothing."},
		{"/cancel_entry_group", `{` + auth + `,"id_token":"` + rent + `"}`, "Entry not found, or in no group of instalments."},
		{"/insert_expense", `{` + auth + `,"description":"X","value":"10","due_date":"2026-12-05","installments":2,"recurrence_every_months":1,"recurrence_times":3}`, "an entry is split in instalments or repeats, not both"},
		{"/insert_expense", `{` + auth + `,"description":"X","value":"10","due_date":"2026-12-05","installments":49}`, "installments: from 2 to 48"},
		{"/insert_expense", `{` + auth + `,"description":"X","value":"10","due_date":"2026-12-05","recurrence_every_months":1}`, "a recurrence ends: give recurrence_times (2 to 120) or recurrence_until (a date after the first due date), not both"},
	} {
		rec := do(h, http.MethodPost, c.path, c.body)
		if rec.Code/100 != 4 || !strings.Contains(rec.Body.String(), `"error":"`+c.want+`"`) {
			t.Errorf("%s %s = %d %s", c.path, c.body, rec.Code, rec.Body)
		}
	}
	db, release = acquire(t, ds)
	r, err := db.RecurrenceOfEntry(context.Background(), 1, rent)
	release()
	if err != nil || !r.Stopped || r.Made != 1 {
		t.Fatalf("the stopped rent: %+v %v", r, err)
	}
}

// TestContactKindAPI: a contact is made a supplier or a customer (a
// fincom field; both by default), /get_contacts keeps each kind with
// those who are both, and an unknown kind is refused.
func TestContactKindAPI(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", `{`+auth+`,"id_token":"{{contact1}}","kind":"supplier"}`)
	post(t, h, "/update_contact", `{`+auth+`,"id_token":"{{contact2}}","kind":"customer"}`)
	names := func(kind string) string {
		var out []string
		for _, c := range post(t, h, "/get_contacts", `{`+auth+`,"kind":"`+kind+`"}`)["data"].([]any) {
			c := c.(map[string]any)
			out = append(out, c["contact_name"].(string)+":"+c["kind"].(string))
		}
		return strings.Join(out, " ")
	}
	if got := names("supplier"); got != "Alfa:supplier" {
		t.Errorf("suppliers: %s", got)
	}
	if got := names("customer"); got != "Maria da Silva:customer" {
		t.Errorf("customers: %s", got)
	}
	post(t, h, "/update_contact", `{`+auth+`,"id_token":"{{contact1}}","kind":"both"}`)
	if got := names("customer"); got != "Alfa:both Maria da Silva:customer" {
		t.Errorf("customers with a contact of both: %s", got)
	}
	for _, body := range []string{`{` + auth + `,"id_token":"{{contact1}}","kind":"boss"}`} {
		if rec := do(h, http.MethodPost, "/update_contact", body); rec.Code != 400 || !strings.Contains(rec.Body.String(), "Invalid kind. Use customer, supplier or both.") {
			t.Errorf("%s = %d %s", body, rec.Code, rec.Body)
		}
	}
	if rec := do(h, http.MethodPost, "/get_contacts", `{`+auth+`,"kind":"boss"}`); rec.Code/100 != 4 {
		t.Errorf("an unknown kind listed = %d %s", rec.Code, rec.Body)
	}
}

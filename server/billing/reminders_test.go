package billing

import (
	"testing"

	"fincom/store"
)

// TestDueStep: the reminder due on a day is the latest step whose day has
// come (the notice notify_days_charge before the due date, then the
// schedule's), once; none on a day one was sent; a step missed while the
// server was down is not sent once a later one is due.
func TestDueStep(t *testing.T) {
	c := func(notify int, steps string, sent []int, today bool) store.ReminderCandidate {
		return store.ReminderCandidate{NotifyDays: notify, Steps: steps, Sent: sent, SentToday: today, Due: store.ChargeDue{DueDate: "2026-12-10"}}
	}
	for _, k := range []struct {
		name string
		c    store.ReminderCandidate
		day  string
		step int
		ok   bool
	}{
		{"too early", c(3, "0,3,10", nil, false), "2026-12-06", 0, false},
		{"the notice", c(3, "0,3,10", nil, false), "2026-12-07", -3, true},
		{"the notice a day late", c(3, "0,3,10", nil, false), "2026-12-08", -3, true},
		{"notice sent", c(3, "0,3,10", []int{-3}, false), "2026-12-09", 0, false},
		{"the due day", c(3, "0,3,10", []int{-3}, false), "2026-12-10", 0, true},
		{"no notice asked", c(0, "0,3,10", nil, false), "2026-12-07", 0, false},
		{"+3", c(3, "0,3,10", []int{-3, 0}, false), "2026-12-13", 3, true},
		{"down from +2 to +12: +10 only", c(3, "0,3,10", []int{-3, 0}, false), "2026-12-22", 10, true},
		{"+10 sent: nothing more", c(3, "0,3,10", []int{-3, 0, 10}, false), "2026-12-30", 0, false},
		{"one sent today", c(3, "0,3,10", []int{-3}, true), "2026-12-10", 0, false},
		{"no schedule", c(3, "", []int{-3}, false), "2026-12-20", 0, false},
		{"a broken schedule reads as the default", c(0, "x", nil, false), "2026-12-13", 3, true},
	} {
		step, ok := dueStep(k.c, k.day)
		if step != k.step || ok != k.ok {
			t.Errorf("%s: %d %v, want %d %v", k.name, step, ok, k.step, k.ok)
		}
	}
}

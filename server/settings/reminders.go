package settings

import (
	"context"
	"strconv"
	"strings"

	"fincom/server/billing"
	"fincom/store"
)

// SetReminders sets the unit's collection schedule: the days after a
// charge's due date (0 the due day) its customer is reminded by e-mail,
// each 0 to 60 once (billing.ErrReminderDays otherwise; none: no
// reminder after the notice before the due date). The change is audited
// before and after.
func SetReminders(ctx context.Context, db *store.DB, unitID int64, days []int) error {
	parts := make([]string, len(days))
	for i, d := range days {
		parts[i] = strconv.Itoa(d)
	}
	steps, err := billing.ReminderSteps(strings.Join(parts, ","))
	if err != nil {
		return refuse("reminder-days", err)
	}
	parts = parts[:0]
	for _, d := range steps {
		parts = append(parts, strconv.Itoa(d))
	}
	now := strings.Join(parts, ",")
	return db.SetReminderDays(ctx, unitID, now, func(was string) (string, error) {
		return "reminder-days: " + orNone(was) + " → " + orNone(now), nil
	})
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

package store

import (
	"context"
	"database/sql"
	"strings"
)

// GroupTotal is what active entries of one direction and DRE group (its
// category's; none for an entry without a category, or of a category
// without a group) add up to in a period.
type GroupTotal struct {
	Group sql.NullInt64
	Type  string // in or out
	Cents int64
}

// Bases of a result: accrual counts entries by competence date (their due
// date when they have none), paid or not; cash counts paid entries by
// payment date.
const (
	BasisAccrual = "accrual"
	BasisCash    = "cash"
)

// GroupTotals sums the active entries of the units dated within from..to
// (YYYY-MM-DD, inclusive) on basis, by DRE group and direction, in
// integer cents.
func (db *DB) GroupTotals(ctx context.Context, unitIDs []int64, from, to, basis string) ([]GroupTotal, error) {
	if len(unitIDs) == 0 {
		return nil, nil
	}
	day := `COALESCE(e.competence_date, e.due_date)`
	if basis == BasisCash {
		day = `e.pay_day`
	}
	args := []any{}
	for _, id := range unitIDs {
		args = append(args, id)
	}
	args = append(args, from, to)
	rows, err := db.r.QueryContext(ctx, `SELECT c.group_code, e.type, SUM(e.value_cents) FROM entries e LEFT JOIN categories c ON c.id = e.category_id
		WHERE e.unit_id IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(unitIDs)), ", ")+`) AND e.active = 1 AND `+day+` BETWEEN ? AND ?
		GROUP BY c.group_code, e.type ORDER BY c.group_code, e.type`, args...)
	if err != nil {
		return nil, wrap("group totals", err)
	}
	defer rows.Close()
	var out []GroupTotal
	for rows.Next() {
		var g GroupTotal
		if err := rows.Scan(&g.Group, &g.Type, &g.Cents); err != nil {
			return nil, wrap("group totals", err)
		}
		out = append(out, g)
	}
	return out, wrap("group totals", rows.Err())
}

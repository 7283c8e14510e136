package accounting

import (
	"database/sql"
	"testing"
	"time"

	"fincom/store"
)

// TestBuild: the DRE's totals carry the result down its lines, each entry
// signed by its direction; what is not result stays outside it; an entry
// without a group, or of a group the layout does not name, is counted as
// without a category of its direction.
func TestBuild(t *testing.T) {
	g := func(code int64, typ string, cents int64) store.GroupTotal {
		return store.GroupTotal{Group: sql.NullInt64{Int64: code, Valid: code != 0}, Type: typ, Cents: cents}
	}
	cur := []store.GroupTotal{g(101, "in", 1000000), g(102, "in", 500000), g(201, "out", 90000), g(202, "out", 400000),
		g(205, "out", 250000), g(207, "out", 3990), g(103, "in", 1200), g(0, "in", 5000), g(999, "out", 1000), g(209, "out", 20000),
		g(211, "out", 300000), g(106, "in", 100000)}
	prev := []store.GroupTotal{g(102, "in", 200000)}
	want := map[string][2]string{
		"g101": {"10000.00", "0.00"}, "receita_bruta": {"15000.00", "2000.00"}, "g201": {"-900.00", "0.00"},
		"receita_liquida": {"14100.00", "2000.00"}, "lucro_bruto": {"10100.00", "2000.00"}, "sem_grupo_in": {"50.00", "0.00"},
		"sem_grupo_out": {"-10.00", "0.00"}, "resultado_operacional": {"7612.10", "2000.00"}, "resultado_antes_ir": {"7612.10", "2000.00"},
		"resultado_liquido": {"7412.10", "2000.00"}, "g211": {"-3000.00", "0.00"}, "g106": {"1000.00", "0.00"},
	}
	lines := Build(cur, prev)
	if len(lines) != len(layout) {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if w, ok := want[l.Key]; ok && (l.Amount.StringFixed(2) != w[0] || l.Previous.StringFixed(2) != w[1]) {
			t.Errorf("%s = %s, %s; want %v", l.Key, l.Amount.StringFixed(2), l.Previous.StringFixed(2), w)
		}
	}
}

func TestPreviousPeriod(t *testing.T) {
	d := func(s string) time.Time { v, _ := time.Parse("2006-01-02", s); return v }
	for _, c := range []struct{ from, to, pf, pt string }{
		{"2026-11-01", "2026-11-30", "2026-10-01", "2026-10-31"},
		{"2026-03-01", "2026-03-31", "2026-02-01", "2026-02-28"},
		{"2026-01-01", "2026-03-31", "2025-10-01", "2025-12-31"},
		{"2026-11-10", "2026-11-19", "2026-10-31", "2026-11-09"},
	} {
		pf, pt := PreviousPeriod(d(c.from), d(c.to))
		if pf.Format("2006-01-02") != c.pf || pt.Format("2006-01-02") != c.pt {
			t.Errorf("%s..%s: previous %s..%s, want %s..%s", c.from, c.to, pf.Format("2006-01-02"), pt.Format("2006-01-02"), c.pf, c.pt)
		}
	}
}

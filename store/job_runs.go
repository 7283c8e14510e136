package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// JobRun is one recorded run of a scheduled job for a day.
type JobRun struct {
	Job        string `json:"job" doc:"The job's name."`
	RunDate    string `json:"run_date" format:"date" doc:"The day it ran for, YYYY-MM-DD."`
	Created    int    `json:"created" doc:"How many records it made."`
	Detail     string `json:"detail" doc:"What it did, in words."`
	FinishedAt Stamp  `json:"finished_at"`
}

// LastJobRun returns the latest day a job ran for, or the domain's creation
// day (São Paulo) when it never ran: the jobs of later days are due.
func (db *DB) LastJobRun(ctx context.Context, job string) (Date, error) {
	var day string
	err := db.r.QueryRowContext(ctx, `SELECT run_date FROM job_runs WHERE job = ? ORDER BY run_date DESC LIMIT 1`, job).Scan(&day)
	if errors.Is(err, sql.ErrNoRows) {
		var created string
		if err := db.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'created_at'`).Scan(&created); err != nil {
			return Date{}, fmt.Errorf("domain creation time: %w", err)
		}
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return Date{}, wrap("last job run", err)
		}
		return Today(t), nil
	}
	if err != nil {
		return Date{}, wrap("last job run", err)
	}
	return ParseDateISO(day)
}

// JobRuns lists the latest runs, newest first.
func (db *DB) JobRuns(ctx context.Context, limit int) ([]JobRun, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT job, run_date, created, detail, finished_at FROM job_runs ORDER BY run_date DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, wrap("job runs", err)
	}
	defer rows.Close()
	out := []JobRun{}
	for rows.Next() {
		var r JobRun
		if err := rows.Scan(&r.Job, &r.RunDate, &r.Created, &r.Detail, &r.FinishedAt); err != nil {
			return nil, wrap("job runs", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func recordJobRun(ctx context.Context, tx *sql.Tx, job string, day Date, created []string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO job_runs (job, run_date, created, detail, finished_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (job, run_date) DO UPDATE SET created = created + excluded.created,
			detail = CASE WHEN excluded.detail = '' THEN detail WHEN detail = '' THEN excluded.detail ELSE detail || ',' || excluded.detail END,
			finished_at = excluded.finished_at`,
		job, day.ISO(), len(created), strings.Join(created, ","), timestamp(now))
	return err
}

// orderCopyColumns are what a recurring order's monthly copy repeats: its
// values and configuration, not its state.
const orderCopyColumns = `unit_id, contact_id, stock_item_id, category_id, project_id, bank_account_id,
	bank_account_payment_id, payment_method_id, description, value, value_cents, quantity, in_automation, conciliation,
	provider_bank, installment_credit, installments, pix_key, notify_days_charge, notify_email_charge, notify_email_nf,
	notify_email_alert, observation_sales, nf_kind, generate_nf_webhook, tipo_documento, finalidade_emissao,
	presenca_comprador, consumidor_final, service_assoc_id, service_id, service_cod, service_location, freight_mode,
	freight_total, local_destino, taxes, requested_payment_mode, charge_on_pix_acceptance`

// AddMonths moves a date by n months, keeping the day of month and
// clamping it to the month's last day (the 31st becomes the 30th, or
// February's 28th or 29th).
func AddMonths(d Date, n int) Date {
	first := time.Date(d.Year(), d.Month()+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return Date{time.Date(first.Year(), first.Month(), min(d.Day(), last), 0, 0, 0, 0, time.UTC)}
}

// RecurrenceJob is the name under which the monthly recurrence records its
// runs.
const RecurrenceJob = "sales_order_recurrence"

// CreateRecurringOrders runs the monthly recurrence for day (a day 1): every
// active recurring order created before that day yields its copy for the
// month, due the same day of month (clamped) as many months after its own
// due date as the month is after the order's creation month, and linked to
// it. A month's copy is made once, whatever the number of runs. It answers
// the codes of the orders it created.
func (db *DB) CreateRecurringOrders(ctx context.Context, day Date) ([]string, error) {
	var created []string
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		month := day.Format("2006-01")
		// Day 1 starts at midnight in São Paulo.
		start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, saoPaulo)
		rows, err := tx.QueryContext(ctx, `
			SELECT id, unit_id, created_at, estimated_payment_date FROM sales_orders
			WHERE recurrence = 1 AND active = 1 AND origin_id IS NULL AND created_at < ?
				-- A billing contract drives its order's repetition itself.
				AND NOT EXISTS (SELECT 1 FROM contracts k WHERE k.sales_order_id = sales_orders.id AND k.is_recurring = 1 AND k.generates_payment = 1)
			ORDER BY id`, timestamp(start))
		if err != nil {
			return err
		}
		type origin struct {
			id, unit int64
			created  time.Time
			due      Date
		}
		var origins []origin
		for rows.Next() {
			var o origin
			var created, due string
			if err := rows.Scan(&o.id, &o.unit, &created, &due); err != nil {
				rows.Close()
				return err
			}
			o.created, _ = time.Parse(time.RFC3339, created)
			o.due, _ = ParseDateISO(due)
			origins = append(origins, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, o := range origins {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM sales_orders WHERE origin_id = ? AND recurrence_month = ?`, o.id, month).Scan(&one)
			if err == nil {
				continue
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			c := o.created.In(saoPaulo)
			k := (day.Year()-c.Year())*12 + int(day.Month()) - int(c.Month())
			due := AddMonths(o.due, k)
			seq, err := nextCounter(ctx, tx, o.unit, "sales_order")
			if err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `
				INSERT INTO sales_orders (token, cod_seq, cod_orders, origin_id, recurrence_month, estimated_payment_date,
					recurrence, created_at, updated_at, `+orderCopyColumns+`)
				SELECT ?, ?, ?, ?, ?, ?, 0, ?, ?, `+orderCopyColumns+` FROM sales_orders WHERE id = ?`,
				db.id(), seq, OrderCode(seq), o.id, month, due.ISO(), timestamp(now), timestamp(now), o.id)
			if err != nil {
				return err
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			if err := copyLines(ctx, tx, id, o.id); err != nil {
				return err
			}
			if err := db.emit(ctx, tx, o.unit, "sales_order.created", map[string]any{"cod_orders": OrderCode(seq), "estimated_payment_date": due.ISO(),
				"recurrence_month": month}, now); err != nil {
				return err
			}
			created = append(created, OrderCode(seq))
		}
		return recordJobRun(ctx, tx, RecurrenceJob, day, created, now)
	})
	return created, wrap("create recurring orders", err)
}

package store

import (
	"context"
	"fmt"
	"testing"
)

// undoSchema undoes the schema changes of migrations that tests run again
// on a file rewound to an earlier version (a data migration is tested on
// such a file). A migration that adds columns or tables adds its undo here.
var undoSchema = map[int]string{
	25: `ALTER TABLE outbox DROP COLUMN sealed;`,
	26: `ALTER TABLE contacts DROP COLUMN icms_contributor; ALTER TABLE contacts DROP COLUMN state_registration;`,
	27: `DROP TABLE invoice_transmissions; ALTER TABLE units DROP COLUMN fiscal_environment;`,
	28: `ALTER TABLE nfe_inbox DROP COLUMN manifestation_reply; ALTER TABLE nfe_inbox DROP COLUMN manifestation_sent;`,
	29: `ALTER TABLE units DROP COLUMN nfse_issuer;`,
	30: `DROP TABLE invoice_events;`,
	31: `ALTER TABLE units DROP COLUMN fiscal_contingency_since; ALTER TABLE units DROP COLUMN fiscal_contingency;`,
	32: `DROP TABLE psp_payments; DROP TABLE unit_psp;`,
	33: `DROP TABLE psp_refunds; ALTER TABLE charges DROP COLUMN refunded_amount;`,
	34: `DROP TABLE pix_recurrences;`,
	35: `DROP TABLE inbox_refused;`,
	36: `ALTER TABLE unit_certificates DROP COLUMN chain;`,
	37: `ALTER TABLE nfe_inbox DROP COLUMN confirmed_at;`,
	39: `ALTER TABLE invoices DROP COLUMN cancel_tries; ALTER TABLE invoices DROP COLUMN cancel_pending;`,
	40: `DROP TABLE abandoned_notes;`,
	41: `ALTER TABLE invoices DROP COLUMN danfse;`,
	42: `ALTER TABLE nfe_inbox DROP COLUMN situation; ALTER TABLE nfe_inbox DROP COLUMN summary;`,
	43: `DROP TABLE invoice_replacements;`,
	44: `DROP INDEX invoices_cancel_pending;`,
	46: `ALTER TABLE products DROP COLUMN ibs_cbs_operation;`,
	47: `ALTER TABLE statement_lines DROP COLUMN entry_effect;`,
	48: `ALTER TABLE units DROP COLUMN accountant_email;`,
	49: `DROP TABLE user_roles; ALTER TABLE access_tokens DROP COLUMN label; ALTER TABLE access_tokens DROP COLUMN user_id;`,
	50: `DROP TRIGGER access_tokens_changed_i; DROP TRIGGER access_tokens_changed_u; DROP TRIGGER access_tokens_changed_d; DROP TRIGGER users_changed_i; DROP TRIGGER users_changed_u; DROP TRIGGER users_changed_d; DROP TRIGGER user_roles_changed_i; DROP TRIGGER user_roles_changed_u; DROP TRIGGER user_roles_changed_d; DROP TRIGGER units_changed_i; DROP TRIGGER units_changed_u; DROP TRIGGER units_changed_d; DROP TABLE auth_changes;`,
	51: `DROP TABLE form_keys;`,
	66: `ALTER TABLE bank_agreements DROP COLUMN interest_percent; ALTER TABLE bank_agreements DROP COLUMN fine_percent;`,
	67: `ALTER TABLE bank_agreements DROP COLUMN variation;`,
	65: `ALTER TABLE products DROP COLUMN gtin;`,
	64: `ALTER TABLE units DROP COLUMN order_pdf_mail;`,
	63: `ALTER TABLE charges DROP COLUMN due_change_remittance_id; ALTER TABLE charges DROP COLUMN due_change;`,
	62: `DROP TABLE charge_reissues;`,
	61: `DROP TABLE charge_reminders; ALTER TABLE units DROP COLUMN reminder_days;`,
	60: `DROP TABLE statement_line_items; DROP TABLE charge_parts; ALTER TABLE entries DROP COLUMN charge_id;`,
	59: `ALTER TABLE statement_lines DROP COLUMN diff_entry_id;`,
	58: `ALTER TABLE statement_lines DROP COLUMN rest_entry_id;`,
	57: `ALTER TABLE entries DROP COLUMN recurrence_id; DROP TABLE entry_recurrences;`,
	56: `DROP INDEX entries_group; ALTER TABLE entries DROP COLUMN group_token; ALTER TABLE entries DROP COLUMN installments; ALTER TABLE entries DROP COLUMN installment;`,
	55: `ALTER TABLE contacts DROP COLUMN kind;`,
	54: ``,
	53: `ALTER TABLE entries DROP COLUMN sales_order_id;`,
	52: `ALTER TABLE psp_payments DROP COLUMN decided_at; ALTER TABLE psp_payments DROP COLUMN asked; ALTER TABLE psp_payments DROP COLUMN status;`,
	45: `ALTER TABLE sales_order_lines DROP COLUMN ibs_cbs_class; ALTER TABLE products DROP COLUMN ibs_cbs_class; ALTER TABLE products DROP COLUMN ibs_cbs_cst;`,
}

// rewind sets the file's schema version back to version, undoing the
// schema changes of the later migrations, so that migrate runs them again.
func rewind(t *testing.T, db *DB, version int) {
	t.Helper()
	for v := SchemaVersion(); v > version; v-- {
		if _, err := db.w.ExecContext(context.Background(), undoSchema[v]); err != nil {
			t.Fatalf("undo migration %d: %v", v, err)
		}
	}
	if _, err := db.w.ExecContext(context.Background(), fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
		t.Fatal(err)
	}
}

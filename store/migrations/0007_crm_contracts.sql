-- CRM records, contract templates, contracts and their files.
CREATE TABLE crm_records (
	id                    INTEGER PRIMARY KEY,
	token                 TEXT NOT NULL UNIQUE,
	unit_id               INTEGER NOT NULL REFERENCES units(id),
	contact_id            INTEGER REFERENCES contacts(id),
	record_date           TEXT NOT NULL,
	communication_type    TEXT,
	lifecycle_phase       TEXT,
	lead_status           TEXT,
	description           TEXT,
	contact_success       INTEGER NOT NULL DEFAULT 0,
	next_contact_datetime TEXT,
	next_contact_reason   TEXT,
	active                INTEGER NOT NULL DEFAULT 1,
	created_at            TEXT NOT NULL,
	updated_at            TEXT NOT NULL
) STRICT;
CREATE INDEX crm_unit_date ON crm_records(unit_id, record_date);

CREATE TABLE contract_templates (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	name        TEXT NOT NULL,
	body_html   TEXT NOT NULL,
	page_css    TEXT NOT NULL,
	header_html TEXT,
	footer_html TEXT,
	is_default  INTEGER NOT NULL DEFAULT 0,
	active      INTEGER NOT NULL DEFAULT 1,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX contract_templates_default ON contract_templates(unit_id) WHERE is_default = 1;

CREATE TABLE contracts (
	id                INTEGER PRIMARY KEY,
	token             TEXT NOT NULL UNIQUE,
	unit_id           INTEGER NOT NULL REFERENCES units(id),
	contact_id        INTEGER NOT NULL REFERENCES contacts(id),
	template_id       INTEGER REFERENCES contract_templates(id),
	contract_name     TEXT NOT NULL,
	status            TEXT NOT NULL CHECK (status IN ('draft', 'active', 'expired', 'cancelled')),
	validity_start    TEXT NOT NULL,
	validity_end      TEXT,
	is_recurring      INTEGER NOT NULL DEFAULT 0,
	recurrence_type   TEXT CHECK (recurrence_type IN ('unique', 'monthly', 'yearly')),
	generates_payment INTEGER NOT NULL DEFAULT 0,
	auto_extend       INTEGER NOT NULL DEFAULT 0,
	description       TEXT,
	sales_order_id    INTEGER REFERENCES sales_orders(id),
	active            INTEGER NOT NULL DEFAULT 1,
	created_at        TEXT NOT NULL,
	updated_at        TEXT NOT NULL
) STRICT;
CREATE INDEX contracts_unit ON contracts(unit_id, active, validity_start);

CREATE TABLE contract_orders (
	contract_id INTEGER NOT NULL REFERENCES contracts(id),
	order_id    INTEGER NOT NULL REFERENCES sales_orders(id),
	PRIMARY KEY (contract_id, order_id)
) STRICT;

CREATE TABLE contract_files (
	id           INTEGER PRIMARY KEY,
	token        TEXT NOT NULL UNIQUE,
	contract_id  INTEGER NOT NULL REFERENCES contracts(id),
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	sha256       TEXT NOT NULL,
	data         BLOB NOT NULL,
	created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX contract_files_contract ON contract_files(contract_id);

-- A contract's billing: one order per period, made once.
CREATE TABLE contract_billing (
	contract_id INTEGER NOT NULL REFERENCES contracts(id),
	period      INTEGER NOT NULL,
	order_id    INTEGER NOT NULL REFERENCES sales_orders(id),
	PRIMARY KEY (contract_id, period)
) STRICT;
ALTER TABLE sales_orders ADD COLUMN requested_payment_mode TEXT;
ALTER TABLE sales_orders ADD COLUMN charge_on_pix_acceptance INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sales_orders ADD COLUMN pix_accepted_at TEXT;

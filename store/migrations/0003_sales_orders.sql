-- Sales orders, their product lines, per-unit counters (order codes are
-- never reused) and the record of scheduled job runs.
ALTER TABLE contacts ADD COLUMN city_ibge TEXT;

CREATE TABLE unit_counters (
	unit_id INTEGER NOT NULL REFERENCES units(id),
	name    TEXT NOT NULL,
	value   INTEGER NOT NULL,
	PRIMARY KEY (unit_id, name)
) STRICT;

CREATE TABLE sales_orders (
	id                      INTEGER PRIMARY KEY,
	token                   TEXT NOT NULL UNIQUE,
	unit_id                 INTEGER NOT NULL REFERENCES units(id),
	cod_seq                 INTEGER NOT NULL,
	cod_orders              TEXT NOT NULL,
	active                  INTEGER NOT NULL DEFAULT 1,
	origin_id               INTEGER REFERENCES sales_orders(id),
	recurrence_month        TEXT,
	contact_id              INTEGER NOT NULL REFERENCES contacts(id),
	stock_item_id           INTEGER REFERENCES products(id),
	category_id             INTEGER NOT NULL REFERENCES categories(id),
	project_id              INTEGER REFERENCES projects(id),
	bank_account_id         INTEGER REFERENCES bank_accounts(id),
	bank_account_payment_id INTEGER REFERENCES bank_accounts(id),
	payment_method_id       INTEGER NOT NULL REFERENCES payment_methods(id),
	description             TEXT NOT NULL,
	value                   TEXT NOT NULL,
	value_cents             INTEGER NOT NULL,
	quantity                TEXT NOT NULL,
	estimated_payment_date  TEXT NOT NULL,
	recurrence              INTEGER NOT NULL DEFAULT 0,
	in_automation           INTEGER NOT NULL DEFAULT 0,
	conciliation            INTEGER NOT NULL DEFAULT 0,
	provider_bank           TEXT,
	installment_credit      INTEGER NOT NULL DEFAULT 1,
	installments            INTEGER NOT NULL DEFAULT 1,
	pix_key                 TEXT,
	notify_days_charge      INTEGER NOT NULL DEFAULT 0,
	notify_email_charge     TEXT,
	notify_email_nf         TEXT,
	notify_email_alert      TEXT,
	observation_sales       TEXT,
	nf_kind                 TEXT,
	generate_nf_webhook     INTEGER NOT NULL DEFAULT 0,
	tipo_documento          TEXT,
	finalidade_emissao      TEXT,
	presenca_comprador      TEXT,
	consumidor_final        TEXT,
	service_assoc_id        TEXT,
	service_id              TEXT,
	service_cod             TEXT,
	service_location        TEXT,
	freight_mode            INTEGER NOT NULL DEFAULT 9,
	freight_total           TEXT NOT NULL DEFAULT '0.00',
	local_destino           INTEGER NOT NULL DEFAULT 1,
	taxes                   TEXT NOT NULL,
	charge_status           TEXT NOT NULL DEFAULT 'NONE',
	nf                      INTEGER NOT NULL DEFAULT 0,
	revenue                 INTEGER NOT NULL DEFAULT 0,
	charge                  INTEGER NOT NULL DEFAULT 0,
	cancel_nf               INTEGER NOT NULL DEFAULT 0,
	cancel_charge           INTEGER NOT NULL DEFAULT 0,
	date_nf                 TEXT,
	date_revenue            TEXT,
	date_charge             TEXT,
	date_cancel_nf          TEXT,
	date_cancel_charge      TEXT,
	date_payment            TEXT,
	nf_status_text          TEXT,
	created_at              TEXT NOT NULL,
	updated_at              TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX sales_orders_code ON sales_orders(unit_id, cod_seq);
-- One generated order per origin and month: the recurrence job may run
-- twice for a day and create nothing more.
CREATE UNIQUE INDEX sales_orders_recurrence ON sales_orders(origin_id, recurrence_month) WHERE origin_id IS NOT NULL;
CREATE INDEX sales_orders_unit_date ON sales_orders(unit_id, estimated_payment_date);
CREATE INDEX sales_orders_recurring ON sales_orders(recurrence) WHERE recurrence = 1;

CREATE TABLE sales_order_products (
	order_id   INTEGER NOT NULL REFERENCES sales_orders(id),
	position   INTEGER NOT NULL,
	product_id INTEGER NOT NULL REFERENCES products(id),
	quantity   TEXT NOT NULL,
	PRIMARY KEY (order_id, position)
) STRICT;

CREATE TABLE job_runs (
	id          INTEGER PRIMARY KEY,
	job         TEXT NOT NULL,
	run_date    TEXT NOT NULL,
	created     INTEGER NOT NULL,
	detail      TEXT NOT NULL,
	finished_at TEXT NOT NULL,
	UNIQUE (job, run_date)
) STRICT;

-- Charges of sales orders through collection providers, the order's public
-- token for the payment portal, the portal's events and the e-mail outbox.
ALTER TABLE sales_orders ADD COLUMN public_token TEXT;
CREATE UNIQUE INDEX sales_orders_public_token ON sales_orders(public_token) WHERE public_token IS NOT NULL;

CREATE TABLE charges (
	id                INTEGER PRIMARY KEY,
	token             TEXT NOT NULL UNIQUE,
	order_id          INTEGER NOT NULL REFERENCES sales_orders(id),
	installment       INTEGER NOT NULL,
	installments      INTEGER NOT NULL,
	idempotency_key   TEXT NOT NULL UNIQUE,
	provider          TEXT NOT NULL,
	payment_key       TEXT NOT NULL,
	status            TEXT NOT NULL CHECK (status IN ('ISSUING', 'PENDING', 'PAID', 'OVERDUE', 'CANCELLED')),
	amount            TEXT NOT NULL,
	due_date          TEXT NOT NULL,
	boleto_line       TEXT,
	boleto_barcode    TEXT,
	pix_payload       TEXT,
	pix_txid          TEXT,
	provider_ref      TEXT,
	card_installments INTEGER,
	paid_at           TEXT,
	paid_amount       TEXT,
	cancelled_at      TEXT,
	created_at        TEXT NOT NULL,
	updated_at        TEXT NOT NULL
) STRICT;
-- An installment has at most one live charge: it is never issued twice.
CREATE UNIQUE INDEX charges_live ON charges(order_id, installment) WHERE status <> 'CANCELLED';
CREATE INDEX charges_due ON charges(status, due_date);

CREATE TABLE portal_events (
	id         INTEGER PRIMARY KEY,
	order_id   INTEGER NOT NULL REFERENCES sales_orders(id),
	kind       TEXT NOT NULL,
	detail     TEXT,
	created_at TEXT NOT NULL
) STRICT;
CREATE INDEX portal_events_order ON portal_events(order_id, id);

CREATE TABLE outbox (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	order_id    INTEGER REFERENCES sales_orders(id),
	kind        TEXT NOT NULL,
	dedupe_key  TEXT UNIQUE,
	to_addr     TEXT NOT NULL,
	subject     TEXT NOT NULL,
	body        TEXT NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
	attempts    INTEGER NOT NULL DEFAULT 0,
	next_try_at TEXT NOT NULL,
	last_error  TEXT,
	sent_at     TEXT,
	created_at  TEXT NOT NULL
) STRICT;
CREATE INDEX outbox_pending ON outbox(status, next_try_at);

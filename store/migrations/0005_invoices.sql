-- Fiscal invoices of sales orders.
CREATE TABLE invoices (
	id            INTEGER PRIMARY KEY,
	token         TEXT NOT NULL UNIQUE,
	order_id      INTEGER NOT NULL REFERENCES sales_orders(id),
	unit_id       INTEGER NOT NULL REFERENCES units(id),
	kind          TEXT NOT NULL CHECK (kind IN ('nfe', 'nfce', 'nfse', 'nfsen')),
	status        TEXT NOT NULL CHECK (status IN ('AUTHORIZED', 'CANCELLED')),
	series        INTEGER NOT NULL,
	number        INTEGER NOT NULL,
	access_key    TEXT,
	verification  TEXT,
	protocol      TEXT NOT NULL,
	xml           TEXT NOT NULL,
	issued_at     TEXT NOT NULL,
	cancelled_at  TEXT,
	cancel_reason TEXT,
	UNIQUE (unit_id, kind, series, number)
) STRICT;
-- An order has at most one authorized invoice: issuing twice issues once.
CREATE UNIQUE INDEX invoices_live ON invoices(order_id) WHERE status = 'AUTHORIZED';

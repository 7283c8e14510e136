-- An invoice keeps the authority's verdict whatever it is: authorized,
-- cancelled, rejected (its number goes back to the series: a rejected
-- invoice holds none) or denied (uso denegado: the number is spent), with
-- the authority's code and text. The table is rebuilt to widen its status
-- and to hold a number only while the invoice is not rejected.
CREATE TABLE invoices_new (
	id            INTEGER PRIMARY KEY,
	token         TEXT NOT NULL UNIQUE,
	order_id      INTEGER NOT NULL REFERENCES sales_orders(id),
	unit_id       INTEGER NOT NULL REFERENCES units(id),
	kind          TEXT NOT NULL CHECK (kind IN ('nfe', 'nfce', 'nfse', 'nfsen')),
	status        TEXT NOT NULL CHECK (status IN ('AUTHORIZED', 'CANCELLED', 'REJECTED', 'DENIED')),
	series        INTEGER NOT NULL,
	number        INTEGER NOT NULL,
	access_key    TEXT,
	verification  TEXT,
	protocol      TEXT NOT NULL,
	xml           TEXT NOT NULL,
	issued_at     TEXT NOT NULL,
	cancelled_at  TEXT,
	cancel_reason TEXT,
	status_code   INTEGER,
	status_text   TEXT
) STRICT;
INSERT INTO invoices_new (id, token, order_id, unit_id, kind, status, series, number, access_key, verification, protocol, xml, issued_at,
	cancelled_at, cancel_reason, status_text)
	SELECT i.id, i.token, i.order_id, i.unit_id, i.kind, i.status, i.series, i.number, i.access_key, i.verification, i.protocol, i.xml, i.issued_at,
		i.cancelled_at, i.cancel_reason, (SELECT o.nf_status_text FROM sales_orders o WHERE o.id = i.order_id)
	FROM invoices i;
DROP TABLE invoices;
ALTER TABLE invoices_new RENAME TO invoices;
CREATE UNIQUE INDEX invoices_number ON invoices(unit_id, kind, series, number) WHERE status <> 'REJECTED';
CREATE UNIQUE INDEX invoices_live ON invoices(order_id) WHERE status = 'AUTHORIZED';
CREATE INDEX invoices_order ON invoices(order_id);

-- A note in transmission has the token its invoice will keep, whatever
-- the verdict: the pending invoice an answer shows is the one stored.
ALTER TABLE invoice_transmissions ADD COLUMN token TEXT;
UPDATE invoice_transmissions SET token = lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
	substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + abs(random()) % 4, 1) || substr(lower(hex(randomblob(2))), 2) || '-' ||
	lower(hex(randomblob(6)));

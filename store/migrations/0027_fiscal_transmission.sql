-- Each unit issues in a fiscal environment: homologação (tests, no legal
-- value) until the operator chooses production (unit set
-- --fiscal-environment). A note whose sending's answer was lost waits in
-- invoice_transmissions with its number and issue time, so that issuing
-- again sends the same note (same key) after asking the authority, never
-- a second one (TestTransmissionLostAnswer).
ALTER TABLE units ADD COLUMN fiscal_environment TEXT NOT NULL DEFAULT 'homologacao'
	CHECK (fiscal_environment IN ('homologacao', 'producao'));
CREATE TABLE invoice_transmissions (
	order_id   INTEGER PRIMARY KEY REFERENCES sales_orders(id),
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	kind       TEXT NOT NULL,
	series     INTEGER NOT NULL,
	number     INTEGER NOT NULL,
	access_key TEXT NOT NULL,
	issued_at  TEXT NOT NULL,
	-- The note as signed and sent: sent again as it was, never rebuilt
	-- from an order changed since.
	signed     TEXT NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 1,
	last_error TEXT,
	updated_at TEXT NOT NULL
) STRICT;

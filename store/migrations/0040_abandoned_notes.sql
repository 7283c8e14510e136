-- A note sent whose answer never came, replaced for its sale by a note
-- issued in contingency under a fresh number (an NFC-e offline). Once
-- SEFAZ answers, its key is asked for: authorized after all, it is
-- cancelled by substitution naming the note that replaced it; unknown,
-- its number is voided. It is never sent again.
CREATE TABLE abandoned_notes (
	id         INTEGER PRIMARY KEY,
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	order_id   INTEGER NOT NULL REFERENCES sales_orders(id),
	kind       TEXT NOT NULL,
	series     INTEGER NOT NULL,
	number     INTEGER NOT NULL,
	access_key TEXT NOT NULL UNIQUE,
	issued_at  TEXT NOT NULL,
	signed     TEXT NOT NULL,
	status     TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'substituted', 'voided')),
	-- What ended it at the authority: the substitution's or the voiding's
	-- protocol and document.
	protocol   TEXT,
	xml        TEXT,
	attempts   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX abandoned_notes_open ON abandoned_notes(status) WHERE status = 'open';

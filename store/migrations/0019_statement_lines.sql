-- A bank account's statement lines as its OFX files gave them, each once
-- by its FITID: matched to the charge or entry they settle, or open for a
-- person to pair or dismiss.
CREATE TABLE statement_lines (
	id              INTEGER PRIMARY KEY,
	token           TEXT NOT NULL UNIQUE,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	bank_account_id INTEGER NOT NULL REFERENCES bank_accounts(id),
	fitid           TEXT NOT NULL,
	posted          TEXT NOT NULL,
	amount          TEXT NOT NULL,
	amount_cents    INTEGER NOT NULL,
	memo            TEXT,
	status          TEXT NOT NULL CHECK (status IN ('open', 'matched', 'dismissed')),
	matched_by      TEXT CHECK (matched_by IN ('exact', 'window', 'person')),
	entry_id        INTEGER REFERENCES entries(id),
	charge_id       INTEGER REFERENCES charges(id),
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL,
	UNIQUE (bank_account_id, fitid)
) STRICT;
CREATE INDEX statement_lines_unit ON statement_lines(unit_id, status, posted);

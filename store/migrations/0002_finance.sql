-- Finance: expenses and income (one table, by type), their attachments,
-- and the inbox of received documents (screenings).
CREATE TABLE screenings (
	id             INTEGER PRIMARY KEY,
	token          TEXT NOT NULL UNIQUE,
	unit_id        INTEGER NOT NULL REFERENCES units(id),
	status         TEXT NOT NULL CHECK (status IN ('pending', 'converted', 'discarded')),
	file_name      TEXT NOT NULL,
	content_type   TEXT NOT NULL,
	size           INTEGER NOT NULL,
	sha256         TEXT NOT NULL,
	data           BLOB NOT NULL,
	extracted      TEXT NOT NULL,
	note           TEXT,
	created_at     TEXT NOT NULL,
	updated_at     TEXT NOT NULL
) STRICT;
CREATE INDEX screenings_unit ON screenings(unit_id, status, id);

CREATE TABLE entries (
	id                INTEGER PRIMARY KEY,
	token             TEXT NOT NULL UNIQUE,
	unit_id           INTEGER NOT NULL REFERENCES units(id),
	type              TEXT NOT NULL CHECK (type IN ('in', 'out')),
	description       TEXT NOT NULL,
	value             TEXT NOT NULL,
	value_cents       INTEGER NOT NULL CHECK (value_cents > 0),
	due_date          TEXT NOT NULL,
	pay_day           TEXT,
	competence_date   TEXT,
	category_id       INTEGER REFERENCES categories(id),
	contact_id        INTEGER REFERENCES contacts(id),
	bank_account_id   INTEGER REFERENCES bank_accounts(id),
	project_id        INTEGER REFERENCES projects(id),
	payment_method_id INTEGER REFERENCES payment_methods(id),
	user_id           INTEGER REFERENCES users(id),
	screening_id      INTEGER REFERENCES screenings(id),
	barcode           TEXT,
	access_key        TEXT,
	key_method_credor TEXT,
	note              TEXT,
	private           INTEGER NOT NULL DEFAULT 0,
	active            INTEGER NOT NULL DEFAULT 1,
	conciliation_date TEXT,
	id_ofx            TEXT,
	created_at        TEXT NOT NULL,
	updated_at        TEXT NOT NULL
) STRICT;
-- The listing reads one unit's entries by due date: a month's query touches
-- that month's rows only, whatever the size of the history.
CREATE INDEX entries_unit_due ON entries(unit_id, due_date);
-- The cash flow reads paid entries by payment date.
CREATE INDEX entries_unit_paid ON entries(unit_id, pay_day) WHERE pay_day IS NOT NULL;
CREATE INDEX entries_contact ON entries(contact_id);
CREATE INDEX entries_bank_account ON entries(bank_account_id) WHERE pay_day IS NOT NULL;

CREATE TABLE entry_files (
	id           INTEGER PRIMARY KEY,
	token        TEXT NOT NULL UNIQUE,
	entry_id     INTEGER NOT NULL REFERENCES entries(id),
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	sha256       TEXT NOT NULL,
	data         BLOB NOT NULL,
	created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX entry_files_entry ON entry_files(entry_id);

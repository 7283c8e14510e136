-- The one-time keys of the portal's forms that make a record: a form sent
-- again (a reload, a double click, back and resend) finds the record its
-- key made and makes nothing twice.
CREATE TABLE form_keys (
	key        TEXT PRIMARY KEY,
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	record     TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;

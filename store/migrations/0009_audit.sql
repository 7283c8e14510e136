-- Who changed what and when.
CREATE TABLE audit_log (
	id         INTEGER PRIMARY KEY,
	at         TEXT NOT NULL,
	actor      TEXT NOT NULL,
	unit_id    INTEGER REFERENCES units(id),
	route      TEXT NOT NULL,
	record     TEXT,
	status     INTEGER NOT NULL
) STRICT;
CREATE INDEX audit_log_at ON audit_log(at);

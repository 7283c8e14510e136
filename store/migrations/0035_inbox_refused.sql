-- Documents of the national environment's distribution a unit's inbox
-- did not take (a note whose signer is not trusted, a document of no kind
-- fincom reads), by NSU, with why: the position moves on, the operator
-- sees them and fetches them again by NSU once the cause is mended.
CREATE TABLE inbox_refused (
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	nsu        INTEGER NOT NULL,
	schema     TEXT NOT NULL,
	reason     TEXT NOT NULL,
	refused_at TEXT NOT NULL,
	PRIMARY KEY (unit_id, nsu)
) STRICT;

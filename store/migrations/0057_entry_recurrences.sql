-- Bills and incomes that repeat: the daily job makes each occurrence
-- some days before it is due, once.
CREATE TABLE entry_recurrences (
	id           INTEGER PRIMARY KEY,
	token        TEXT NOT NULL UNIQUE,
	unit_id      INTEGER NOT NULL REFERENCES units(id),
	model_id     INTEGER NOT NULL REFERENCES entries(id),
	anchor_due   TEXT NOT NULL,
	every_months INTEGER NOT NULL CHECK (every_months BETWEEN 1 AND 12),
	times        INTEGER CHECK (times BETWEEN 2 AND 120),
	until_date   TEXT,
	lead_days    INTEGER NOT NULL CHECK (lead_days BETWEEN 0 AND 60),
	made         INTEGER NOT NULL,
	stopped_at   TEXT,
	created_at   TEXT NOT NULL
) STRICT;
ALTER TABLE entries ADD COLUMN recurrence_id INTEGER REFERENCES entry_recurrences(id);

-- A PIX with due date past its validity is issued anew at the PSP for
-- what the charge asks that day: its fine and interest then (late) are
-- frozen in the new one, which the charge's reference now names.
CREATE TABLE charge_reissues (
	id         INTEGER PRIMARY KEY,
	charge_id  INTEGER NOT NULL REFERENCES charges(id),
	day        TEXT NOT NULL,
	late       TEXT NOT NULL,
	txid       TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;
CREATE INDEX charge_reissues_charge ON charge_reissues(charge_id);

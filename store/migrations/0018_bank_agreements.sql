-- A unit's collection agreements with its banks (provider_a Itaú,
-- provider_b Bradesco, provider_c Santander): the fields each bank defines,
-- the our-number sequence (never reused) and the remittance file numbers.
-- A simulated agreement (test mode, demo) registers its boletos at once; a
-- production server does not use one.
CREATE TABLE bank_agreements (
	id              INTEGER PRIMARY KEY,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	provider        TEXT NOT NULL,
	bank            TEXT NOT NULL,
	agency          TEXT NOT NULL,
	agency_dv       TEXT NOT NULL DEFAULT '',
	account         TEXT NOT NULL,
	account_dv      TEXT NOT NULL,
	wallet          TEXT NOT NULL,
	code            TEXT NOT NULL DEFAULT '',
	next_our_number INTEGER NOT NULL CHECK (next_our_number > 0),
	remittance_seq  INTEGER NOT NULL DEFAULT 0,
	bank_account_id INTEGER REFERENCES bank_accounts(id),
	simulated       INTEGER NOT NULL DEFAULT 0,
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL,
	UNIQUE (unit_id, provider)
) STRICT;
-- Remittance files as sent: numbered in sequence per agreement, kept to be
-- downloaded again.
CREATE TABLE remittances (
	id           INTEGER PRIMARY KEY,
	agreement_id INTEGER NOT NULL REFERENCES bank_agreements(id),
	sequence     INTEGER NOT NULL,
	content      BLOB NOT NULL,
	titles       INTEGER NOT NULL,
	created_at   TEXT NOT NULL,
	UNIQUE (agreement_id, sequence)
) STRICT;
-- Return files applied, by their SHA-256: the same file twice changes
-- nothing. report is the per-line outcome as JSON.
CREATE TABLE return_files (
	id           INTEGER PRIMARY KEY,
	agreement_id INTEGER NOT NULL REFERENCES bank_agreements(id),
	sha256       TEXT NOT NULL,
	name         TEXT,
	report       TEXT NOT NULL,
	imported_at  TEXT NOT NULL,
	UNIQUE (agreement_id, sha256)
) STRICT;
ALTER TABLE charges ADD COLUMN agreement_id INTEGER REFERENCES bank_agreements(id);
ALTER TABLE charges ADD COLUMN our_number TEXT;
-- simulated: registered by test mode's simulated bank; pending: waits for
-- a remittance; sent: in one; registered or rejected: the bank's return.
ALTER TABLE charges ADD COLUMN registration TEXT CHECK (registration IN ('simulated', 'pending', 'sent', 'registered', 'rejected'));
ALTER TABLE charges ADD COLUMN registration_reason TEXT;
ALTER TABLE charges ADD COLUMN remittance_id INTEGER REFERENCES remittances(id);
-- A cancelled registered boleto is written off at the bank: pending until
-- a remittance asks it, sent, done when the return confirms.
ALTER TABLE charges ADD COLUMN writeoff TEXT CHECK (writeoff IN ('pending', 'sent', 'done'));
ALTER TABLE charges ADD COLUMN writeoff_remittance_id INTEGER REFERENCES remittances(id);
ALTER TABLE charges ADD COLUMN fee TEXT;
ALTER TABLE charges ADD COLUMN credit_date TEXT;
-- Who confirmed the payment: simulated (test mode's payer), bank_return,
-- statement, firm.
ALTER TABLE charges ADD COLUMN paid_via TEXT;
CREATE UNIQUE INDEX charges_our_number ON charges(agreement_id, our_number);

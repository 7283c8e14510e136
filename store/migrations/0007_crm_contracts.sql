-- CRM records, contract templates, contracts and their files.
CREATE TABLE crm_records (
	id                    INTEGER PRIMARY KEY,
	token                 TEXT NOT NULL UNIQUE,
	unit_id               INTEGER NOT NULL REFERENCES units(id),
	contact_id            INTEGER REFERENCES contacts(id),
	record_date           TEXT NOT NULL,
	communication_type    TEXT,
	lifecycle_phase       TEXT,
	lead_status           TEXT,
	description           TEXT,
	contact_success       INTEGER NOT NULL DEFAULT 0,
	next_contact_datetime TEXT,
	next_contact_reason   TEXT,
	active                INTEGER NOT NULL DEFAULT 1,
	created_at            TEXT NOT NULL,
	updated_at            TEXT NOT NULL
) STRICT;
CREATE INDEX crm_unit_date ON crm_records(unit_id, record_date);

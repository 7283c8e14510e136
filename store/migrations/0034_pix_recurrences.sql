-- Pix Automático: each recurrence a unit's PSP created for a contract
-- (its idRec, named by the PSP), in the state the PSP last answered, the
-- location of the QR Code the payer approves it by, and the id of the
-- request sent to the payer's PSP, if any.
CREATE TABLE pix_recurrences (
	id_rec      TEXT PRIMARY KEY,
	contract_id INTEGER NOT NULL REFERENCES contracts(id),
	status      TEXT NOT NULL,
	location    TEXT NOT NULL,
	request_id  TEXT,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
) STRICT;
CREATE INDEX pix_recurrences_contract ON pix_recurrences(contract_id, status);

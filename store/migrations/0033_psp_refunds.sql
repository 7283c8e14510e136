-- Refunds (devoluções) of Pix received at a unit's PSP: requested by
-- fincom under an id of its own (a retry is the same request), followed
-- until the PSP settles (DEVOLVIDO) or refuses (NAO_REALIZADO) them; a
-- settled refund books its expense once (entry_id) and adds to its
-- charge's refunded amount.
CREATE TABLE psp_refunds (
	id            TEXT PRIMARY KEY,
	end_to_end_id TEXT NOT NULL REFERENCES psp_payments(end_to_end_id),
	charge_id     INTEGER NOT NULL REFERENCES charges(id),
	amount        TEXT NOT NULL,
	reason        TEXT,
	-- REQUESTED until the PSP acknowledged it, then the PSP's state.
	status        TEXT NOT NULL,
	detail        TEXT,
	entry_id      INTEGER REFERENCES entries(id),
	requested_at  TEXT NOT NULL,
	settled_at    TEXT,
	updated_at    TEXT NOT NULL
) STRICT;
CREATE INDEX psp_refunds_open ON psp_refunds(status) WHERE status IN ('REQUESTED', 'EM_PROCESSAMENTO');
ALTER TABLE charges ADD COLUMN refunded_amount TEXT;

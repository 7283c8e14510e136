-- A Pix of another amount than its charge asks that day is held, not
-- applied, until a person decides: accepted as the charge's payment, kept
-- towards it while the charge stays open for the rest, or refunded.
ALTER TABLE psp_payments ADD COLUMN status TEXT NOT NULL DEFAULT 'applied'
	CHECK (status IN ('applied', 'held', 'accepted', 'kept', 'refunded'));
ALTER TABLE psp_payments ADD COLUMN asked TEXT;
ALTER TABLE psp_payments ADD COLUMN decided_at TEXT;

-- A cancellation sent to the authority whose answer was lost: its reason
-- until the authority confirms or refuses it (the transmissions loop asks
-- again; SEFAZ never registers an event twice), and how many times it
-- has been asked since.
ALTER TABLE invoices ADD COLUMN cancel_pending TEXT;
ALTER TABLE invoices ADD COLUMN cancel_tries INTEGER NOT NULL DEFAULT 0;

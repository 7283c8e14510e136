-- The transmissions loop asks every few seconds for the cancellations
-- sent whose answer was lost: found by an index of those few, not by
-- reading every invoice.
CREATE INDEX invoices_cancel_pending ON invoices(id) WHERE cancel_pending IS NOT NULL;

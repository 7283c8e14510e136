-- What reconciling a statement line did to its entry, so that a person
-- can undo it: paid it (the entry was unpaid), only reconciled it (it was
-- already paid), or booked it (the line became the entry). Null for lines
-- reconciled before this was kept, and for open and dismissed lines.
ALTER TABLE statement_lines ADD COLUMN entry_effect TEXT CHECK (entry_effect IN ('paid', 'reconciled', 'booked'));

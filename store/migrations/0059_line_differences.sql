-- A statement line paired with an entry of another amount books the
-- difference as an entry of its own, undone with it.
ALTER TABLE statement_lines ADD COLUMN diff_entry_id INTEGER REFERENCES entries(id);

-- A statement line that pays part of an entry: the entry it split off
-- for the rest, so that an undo joins them again.
ALTER TABLE statement_lines ADD COLUMN rest_entry_id INTEGER REFERENCES entries(id);

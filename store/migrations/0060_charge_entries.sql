-- The charge whose payment booked this entry: its principal, a late
-- payment's fine and interest (each an entry of its own), or a part a
-- statement line paid. Undoing the line that paid it disables them.
ALTER TABLE entries ADD COLUMN charge_id INTEGER REFERENCES charges(id);

-- Parts of a charge that statement lines paid: the charge stays open for
-- the rest (the parts count as received towards it), each part booked as
-- an income of its own; undone with its line.
CREATE TABLE charge_parts (
	id         INTEGER PRIMARY KEY,
	charge_id  INTEGER NOT NULL REFERENCES charges(id),
	line_id    INTEGER NOT NULL UNIQUE REFERENCES statement_lines(id),
	amount     TEXT NOT NULL,
	entry_id   INTEGER REFERENCES entries(id),
	created_at TEXT NOT NULL
) STRICT;
CREATE INDEX charge_parts_charge ON charge_parts(charge_id);

-- What one statement line paid at once when it paid several entries or
-- charges (the line's entry_id and charge_id name the first), each with
-- what reconciling did to its entry (statement_lines.entry_effect).
CREATE TABLE statement_line_items (
	id        INTEGER PRIMARY KEY,
	line_id   INTEGER NOT NULL REFERENCES statement_lines(id),
	entry_id  INTEGER REFERENCES entries(id),
	charge_id INTEGER REFERENCES charges(id),
	effect    TEXT
) STRICT;
CREATE INDEX statement_line_items_line ON statement_line_items(line_id);

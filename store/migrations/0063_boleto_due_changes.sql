-- A registered boleto given a new due date: the change waits for the next
-- remittance (movement 06) and is then sent.
ALTER TABLE charges ADD COLUMN due_change TEXT CHECK (due_change IN ('pending', 'sent'));
ALTER TABLE charges ADD COLUMN due_change_remittance_id INTEGER REFERENCES remittances(id);

-- A bill or income split in instalments: each instalment is an entry
-- with its number, how many there are and the group's token.
ALTER TABLE entries ADD COLUMN installment INTEGER;
ALTER TABLE entries ADD COLUMN installments INTEGER;
ALTER TABLE entries ADD COLUMN group_token TEXT;
CREATE INDEX entries_group ON entries(unit_id, group_token) WHERE group_token IS NOT NULL;

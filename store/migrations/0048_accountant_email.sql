-- Where a unit's accountant receives the monthly package (accounting), if
-- anywhere.
ALTER TABLE units ADD COLUMN accountant_email TEXT;

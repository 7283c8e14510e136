-- A contact is a customer, a supplier, or (NULL, every contact made
-- before) both: the portal's lists and pickers filter by it.
ALTER TABLE contacts ADD COLUMN kind TEXT CHECK (kind IN ('customer', 'supplier'));

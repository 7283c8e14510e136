-- A unit's own PIX key (normalized as the DICT registers it): the key of
-- the PIX codes of its orders that give none.
ALTER TABLE units ADD COLUMN pix_key TEXT;

-- When the note's authority confirmed an inbox note as authorized, with
-- the same content (asked with the recipient unit's certificate, or the
-- note came from the national environment itself); null: not confirmed.
ALTER TABLE nfe_inbox ADD COLUMN confirmed_at TEXT;

-- The contact search index is written once per transaction, not once per
-- write: the triggers queue the contacts a transaction changed, and the
-- writer indexes them just before it commits (DB.indexSearch). FTS5 writes
-- what it holds as a new segment at every savepoint, and group commit runs
-- each write of a batch in its own savepoint: an index written by the
-- writes themselves took a segment, and its merging, per contact.
CREATE TABLE contacts_fts_pending (
	contact_id INTEGER PRIMARY KEY,
	indexed    INTEGER NOT NULL -- 1: the index holds an entry of it to remove first
) STRICT;
DROP TRIGGER contacts_fts_insert;
DROP TRIGGER contacts_fts_update;
DROP TRIGGER contacts_fts_delete;
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
	INSERT INTO contacts_fts_pending (contact_id, indexed) VALUES (new.id, 0) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF full_name, social_reason, fantasy_name ON contacts BEGIN
	INSERT INTO contacts_fts_pending (contact_id, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
	INSERT INTO contacts_fts_pending (contact_id, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
END;

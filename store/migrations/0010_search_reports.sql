-- Contact search by name: a trigram index lets "search" find the few
-- contacts whose names contain a text without reading every contact of the
-- unit. The index is contentless (the names stay in contacts) and may hold
-- more than the listing's test matches (it folds case beyond ASCII, and the three
-- names share one column), so the listing checks each row it finds.
CREATE VIRTUAL TABLE contacts_fts USING fts5(names, content = '', contentless_delete = 1, tokenize = 'trigram');
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
	INSERT INTO contacts_fts (rowid, names) VALUES (new.id,
		coalesce(new.full_name, '') || char(10) || coalesce(new.social_reason, '') || char(10) || coalesce(new.fantasy_name, ''));
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF full_name, social_reason, fantasy_name ON contacts BEGIN
	DELETE FROM contacts_fts WHERE rowid = old.id;
	INSERT INTO contacts_fts (rowid, names) VALUES (new.id,
		coalesce(new.full_name, '') || char(10) || coalesce(new.social_reason, '') || char(10) || coalesce(new.fantasy_name, ''));
END;
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
	DELETE FROM contacts_fts WHERE rowid = old.id;
END;
INSERT INTO contacts_fts (rowid, names)
	SELECT id, coalesce(full_name, '') || char(10) || coalesce(social_reason, '') || char(10) || coalesce(fantasy_name, '') FROM contacts;

-- The yearly inventory report reads a year of movements by product, month
-- and type: with those columns in the index it never visits the table.
DROP INDEX inventory_unit_date;
CREATE INDEX inventory_unit_date ON inventory_movements(unit_id, active, date_in_out, product_id, type, quantity_milli, total_value);

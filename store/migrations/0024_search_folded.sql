-- The contact search index holds names folded as searches compare them
-- (lower case, no accents: store.fold, in SQL fincom_fold), so every
-- contact the exact test would match is among the index's hits whatever
-- the alphabet (TestSearchFoldsCaseAndAccents). The names already indexed
-- are indexed again, folded.
INSERT INTO contacts_fts (contacts_fts) VALUES ('delete-all');
INSERT INTO contacts_fts (rowid, names)
	SELECT id, fincom_fold(coalesce(full_name, '') || char(10) || coalesce(social_reason, '') || char(10) || coalesce(fantasy_name, ''))
	FROM contacts;
DELETE FROM contacts_fts_pending;

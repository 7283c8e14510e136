-- The contact search index merges any two segments of a level (FTS5's
-- usermerge), a few pages after each commit that indexed contacts
-- (DB.indexSearch): every search term is looked up in every segment, and
-- without it a day of inserts left 8 to 23 segments where it now leaves
-- 4 to 7 (BenchmarkSearchAsItGrows).
INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('usermerge', 2);

-- The contact search index merges any two segments of a level (FTS5's
-- usermerge), a step at a time whenever the writer is idle
-- (DB.mergeSearch): every search term is looked up in every segment, and
-- a day of inserts left 8 to 23 segments until the daily compaction
-- (BenchmarkSearchAsItGrows).
INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('usermerge', 2);

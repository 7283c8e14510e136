-- A note distributed only as a summary (resNFe) enters the inbox as one
-- (summary 1, its XML the summary) until its full document replaces it;
-- situation is the note's standing at the authority as the distribution
-- says it (a summary's cSitNFe, a cancellation event).
ALTER TABLE nfe_inbox ADD COLUMN summary INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nfe_inbox ADD COLUMN situation TEXT CHECK (situation IN ('authorized', 'denied', 'cancelled'));

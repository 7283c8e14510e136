-- The late terms an agreement's boletos state: a fine once, in percent,
-- and simple interest in percent a month (of 30 days, by calendar day).
ALTER TABLE bank_agreements ADD COLUMN fine_percent TEXT NOT NULL DEFAULT '2';
ALTER TABLE bank_agreements ADD COLUMN interest_percent TEXT NOT NULL DEFAULT '1';

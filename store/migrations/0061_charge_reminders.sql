-- The days after a charge's due date (0 the due day) a unit's collection
-- schedule e-mails the customer, comma-separated; empty for none. The
-- notice before the due date stays each order's notify_days_charge.
ALTER TABLE units ADD COLUMN reminder_days TEXT NOT NULL DEFAULT '0,3,10';

-- Each reminder sent of a charge, by the schedule or by a person: its
-- step (days from the due date it had then, negative before it; NULL a
-- person's resend), the day, what the charge asked that day, and the
-- channel.
CREATE TABLE charge_reminders (
	id         INTEGER PRIMARY KEY,
	charge_id  INTEGER NOT NULL REFERENCES charges(id),
	due_date   TEXT NOT NULL,
	step       INTEGER,
	day        TEXT NOT NULL,
	amount_due TEXT NOT NULL,
	channel    TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX charge_reminders_step ON charge_reminders(charge_id, due_date, step) WHERE step IS NOT NULL;
CREATE INDEX charge_reminders_day ON charge_reminders(charge_id, day);

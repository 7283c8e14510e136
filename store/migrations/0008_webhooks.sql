-- Outbound webhooks per unit and their deliveries (written in the same
-- transaction as the change they report, delivered by the scheduler).
CREATE TABLE webhooks (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	url        TEXT NOT NULL,
	secret     TEXT NOT NULL,
	events     TEXT NOT NULL,
	active     INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX webhooks_unit ON webhooks(unit_id, active);

CREATE TABLE webhook_deliveries (
	id           INTEGER PRIMARY KEY,
	event_id     TEXT NOT NULL UNIQUE,
	webhook_id   INTEGER NOT NULL REFERENCES webhooks(id),
	event_type   TEXT NOT NULL,
	payload      TEXT NOT NULL,
	status       TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
	attempts     INTEGER NOT NULL DEFAULT 0,
	next_try_at  TEXT NOT NULL,
	last_status  INTEGER,
	last_error   TEXT,
	delivered_at TEXT,
	created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_try_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, id);

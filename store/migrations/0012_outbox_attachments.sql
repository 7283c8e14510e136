-- Files an e-mail carries (an invoice's XML), as they were when the
-- message was queued: a retry sends the same bytes.
CREATE TABLE outbox_attachments (
	outbox_id    INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
	position     INTEGER NOT NULL,
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	data         BLOB NOT NULL,
	PRIMARY KEY (outbox_id, position)
) STRICT;

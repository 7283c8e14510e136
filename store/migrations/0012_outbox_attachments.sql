-- Files an e-mail carries (an invoice's XML and DANFE), as they were when
-- the message was queued: a retry sends the same bytes. Once the message
-- is sent its files' bytes are dropped (data NULL; the invoice keeps its
-- documents), so that a domain does not keep a copy of every e-mail.
CREATE TABLE outbox_attachments (
	outbox_id    INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
	position     INTEGER NOT NULL,
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	data         BLOB,
	PRIMARY KEY (outbox_id, position)
) STRICT;

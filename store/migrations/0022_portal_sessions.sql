-- The portal's sign-in (store/sessions.go): single-use links a user gets
-- by e-mail, and the sessions they start. Only hashes of their secrets.
CREATE TABLE portal_links (
	hash       BLOB PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id),
	expires_at TEXT NOT NULL,
	used_at    TEXT
) STRICT;
CREATE TABLE portal_sessions (
	hash       BLOB PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id),
	csrf       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	ended_at   TEXT
) STRICT;

-- Who may do what: a user's role on one unit, or on every unit (unit_id
-- NULL); a unit's own row wins over the every-unit one.
CREATE TABLE user_roles (
	id      INTEGER PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id),
	unit_id INTEGER REFERENCES units(id),
	-- none: held back from a unit the every-unit row gives.
	role    TEXT NOT NULL CHECK (role IN ('owner', 'finance', 'sales', 'accountant', 'none'))
) STRICT;
CREATE UNIQUE INDEX user_roles_unit ON user_roles (user_id, coalesce(unit_id, 0));
-- Before roles every user could do everything on every unit: they stay
-- owners, and nobody loses access by the upgrade.
INSERT INTO user_roles (user_id, unit_id, role) SELECT id, NULL, 'owner' FROM users;
-- An access token a user made carries the user's roles (NULL: the
-- operator's, made with the CLI, which may do everything), and its label.
ALTER TABLE access_tokens ADD COLUMN user_id INTEGER REFERENCES users(id);
ALTER TABLE access_tokens ADD COLUMN label TEXT;

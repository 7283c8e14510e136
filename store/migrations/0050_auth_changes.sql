-- A count of the changes to what Authenticate reads (tokens, users, their
-- roles, units), kept by triggers: the server's writer reads it with each
-- commit, and a change drops the access it keeps in memory (auth_cache.go).
CREATE TABLE auth_changes (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
) STRICT;
INSERT INTO auth_changes (id, n) VALUES (1, 0);
CREATE TRIGGER access_tokens_changed_i AFTER INSERT ON access_tokens BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER access_tokens_changed_u AFTER UPDATE ON access_tokens BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER access_tokens_changed_d AFTER DELETE ON access_tokens BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER users_changed_i AFTER INSERT ON users BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER users_changed_u AFTER UPDATE ON users BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER users_changed_d AFTER DELETE ON users BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER user_roles_changed_i AFTER INSERT ON user_roles BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER user_roles_changed_u AFTER UPDATE ON user_roles BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER user_roles_changed_d AFTER DELETE ON user_roles BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER units_changed_i AFTER INSERT ON units BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER units_changed_u AFTER UPDATE ON units BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER units_changed_d AFTER DELETE ON units BEGIN UPDATE auth_changes SET n = n + 1; END;

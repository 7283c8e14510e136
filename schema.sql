-- fincom schema, current version. Fresh domain files are created from this
-- file in one step; existing files are upgraded by store/migrations/, and a
-- test proves both give the same schema.

-- Domain, units, tokens and users.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE access_tokens (
	id         INTEGER PRIMARY KEY,
	hash       BLOB NOT NULL UNIQUE,
	hint       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	revoked_at TEXT
) STRICT;

CREATE TABLE units (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	name       TEXT NOT NULL,
	cnpj       TEXT,
	city_ibge  TEXT,
	im         TEXT,
	created_at TEXT NOT NULL
) STRICT;

CREATE TABLE users (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	name       TEXT NOT NULL,
	email      TEXT NOT NULL UNIQUE COLLATE NOCASE,
	active     INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL
) STRICT;

-- Registers.
CREATE TABLE contacts (
	id            INTEGER PRIMARY KEY,
	token         TEXT NOT NULL UNIQUE,
	unit_id       INTEGER NOT NULL REFERENCES units(id),
	type          TEXT NOT NULL CHECK (type IN ('natural_person', 'legal')),
	register      TEXT NOT NULL,
	display_name  TEXT NOT NULL,
	full_name     TEXT,
	social_reason TEXT,
	fantasy_name  TEXT,
	birth_date    TEXT,
	phone         TEXT,
	email         TEXT,
	address       TEXT,
	number        TEXT,
	complement    TEXT,
	neighborhood  TEXT,
	city          TEXT,
	state         TEXT,
	zip_code      TEXT,
	observation   TEXT,
	data_bank     TEXT,
	active        INTEGER NOT NULL DEFAULT 1,
	created_at    TEXT NOT NULL,
	updated_at    TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX contacts_unit_register ON contacts(unit_id, register);
CREATE INDEX contacts_unit_name ON contacts(unit_id, active, display_name);

CREATE TABLE category_groups (
	code        INTEGER PRIMARY KEY,
	module_type TEXT NOT NULL CHECK (module_type IN ('in', 'out')),
	name        TEXT NOT NULL,
	description TEXT NOT NULL,
	active      INTEGER NOT NULL DEFAULT 1
) STRICT;

CREATE TABLE categories (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	module_type TEXT NOT NULL CHECK (module_type IN ('in', 'out')),
	name        TEXT NOT NULL,
	note        TEXT,
	group_code  INTEGER REFERENCES category_groups(code),
	active      INTEGER NOT NULL DEFAULT 1,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX categories_unit_name ON categories(unit_id, module_type, name COLLATE NOCASE);

CREATE TABLE projects (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	name        TEXT NOT NULL,
	observation TEXT,
	budget      TEXT NOT NULL DEFAULT '0.00',
	active      INTEGER NOT NULL DEFAULT 1,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
) STRICT;
CREATE INDEX projects_unit ON projects(unit_id, active);

CREATE TABLE banks (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	code       TEXT NOT NULL UNIQUE,
	ispb       TEXT NOT NULL,
	name       TEXT NOT NULL,
	group_bank TEXT NOT NULL
) STRICT;
CREATE INDEX banks_group ON banks(group_bank, name);

CREATE TABLE bank_types (
	id    INTEGER PRIMARY KEY,
	token TEXT NOT NULL UNIQUE,
	key   TEXT NOT NULL UNIQUE,
	name  TEXT NOT NULL
) STRICT;

CREATE TABLE bank_accounts (
	id                   INTEGER PRIMARY KEY,
	token                TEXT NOT NULL UNIQUE,
	unit_id              INTEGER NOT NULL REFERENCES units(id),
	bank_id              INTEGER NOT NULL REFERENCES banks(id),
	bank_type_id         INTEGER NOT NULL REFERENCES bank_types(id),
	agency               TEXT,
	dv_agencia           TEXT,
	current_account      TEXT,
	dv_conta             TEXT,
	nick_name            TEXT,
	observation          TEXT,
	opening_balance      TEXT NOT NULL DEFAULT '0.00',
	opening_balance_date TEXT,
	active               INTEGER NOT NULL DEFAULT 1,
	created_at           TEXT NOT NULL,
	updated_at           TEXT NOT NULL
) STRICT;
CREATE INDEX bank_accounts_unit ON bank_accounts(unit_id, active);

CREATE TABLE products (
	id             INTEGER PRIMARY KEY,
	token          TEXT NOT NULL UNIQUE,
	unit_id        INTEGER NOT NULL REFERENCES units(id),
	description    TEXT NOT NULL,
	type           TEXT NOT NULL CHECK (type IN ('product', 'service')),
	monetary_value TEXT NOT NULL DEFAULT '0.00',
	usage_type     TEXT NOT NULL,
	ncm            TEXT,
	cfop           TEXT,
	unit           TEXT,
	active         INTEGER NOT NULL DEFAULT 1,
	created_at     TEXT NOT NULL,
	updated_at     TEXT NOT NULL
) STRICT;
CREATE INDEX products_unit ON products(unit_id, active, description);

CREATE TABLE payment_methods (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	payment_key TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	active      INTEGER NOT NULL DEFAULT 1
) STRICT;

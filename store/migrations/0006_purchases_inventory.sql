-- Inventory movements, the NF-e inbox and purchase orders.
ALTER TABLE units ADD COLUMN allow_negative_stock INTEGER NOT NULL DEFAULT 0;

CREATE TABLE inventory_movements (
	id              INTEGER PRIMARY KEY,
	token           TEXT NOT NULL UNIQUE,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	product_id      INTEGER NOT NULL REFERENCES products(id),
	contact_id      INTEGER REFERENCES contacts(id),
	purchase_id     INTEGER,
	type            TEXT NOT NULL CHECK (type IN ('in', 'out')),
	quantity        TEXT NOT NULL,
	quantity_milli  INTEGER NOT NULL CHECK (quantity_milli > 0),
	unitary_value   TEXT NOT NULL,
	total_value     TEXT NOT NULL,
	lote            TEXT,
	validation_date TEXT,
	date_in_out     TEXT NOT NULL,
	active          INTEGER NOT NULL DEFAULT 1,
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL
) STRICT;
CREATE INDEX inventory_unit_date ON inventory_movements(unit_id, active, date_in_out);
CREATE INDEX inventory_product ON inventory_movements(product_id, active);

-- A product's stock, kept with every movement in the same transaction, so
-- that checking an exit does not sum the product's history.
CREATE TABLE product_stock (
	product_id    INTEGER PRIMARY KEY REFERENCES products(id),
	balance_milli INTEGER NOT NULL
) STRICT;

CREATE TABLE nfe_inbox (
	id             INTEGER PRIMARY KEY,
	token          TEXT NOT NULL UNIQUE,
	unit_id        INTEGER NOT NULL REFERENCES units(id),
	access_key     TEXT NOT NULL,
	supplier_cnpj  TEXT NOT NULL,
	supplier_name  TEXT NOT NULL,
	issue_date     TEXT,
	total_value    TEXT NOT NULL,
	xml            TEXT NOT NULL,
	manifestation  TEXT,
	manifested_at  TEXT,
	justification  TEXT,
	created_at     TEXT NOT NULL,
	UNIQUE (unit_id, access_key)
) STRICT;

CREATE TABLE purchase_orders (
	id              INTEGER PRIMARY KEY,
	token           TEXT NOT NULL UNIQUE,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	code            TEXT NOT NULL,
	access_key      TEXT NOT NULL,
	status          TEXT NOT NULL CHECK (status IN ('awaiting_xml', 'complete')),
	issue_date      TEXT,
	estimated_payment_date TEXT,
	contact_id      INTEGER REFERENCES contacts(id),
	supplier_name   TEXT NOT NULL,
	supplier_cnpj   TEXT NOT NULL,
	category_id     INTEGER REFERENCES categories(id),
	project_id      INTEGER REFERENCES projects(id),
	total_value     TEXT NOT NULL,
	items_total     TEXT NOT NULL,
	items_tax_total TEXT NOT NULL,
	freight_value   TEXT NOT NULL,
	total_tax       TEXT NOT NULL,
	items           TEXT NOT NULL,
	xml_file_name   TEXT,
	files_name      TEXT NOT NULL,
	pdfs_name       TEXT NOT NULL,
	key_info        TEXT NOT NULL,
	active          INTEGER NOT NULL DEFAULT 1,
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL,
	UNIQUE (unit_id, access_key)
) STRICT;
CREATE INDEX purchase_orders_unit_date ON purchase_orders(unit_id, estimated_payment_date);

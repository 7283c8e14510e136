-- A product's own code (the NF-e's cProd): per unit, sequential unless
-- the firm gives one, unique in the unit. Existing products are numbered
-- in the order they were made.
ALTER TABLE products ADD COLUMN code TEXT;
UPDATE products SET code = printf('%06d', (SELECT count(*) FROM products p WHERE p.unit_id = products.unit_id AND p.id <= products.id));
CREATE UNIQUE INDEX products_code ON products(unit_id, code);
INSERT INTO unit_counters (unit_id, name, value) SELECT unit_id, 'product_code', count(*) FROM products GROUP BY unit_id
	ON CONFLICT (unit_id, name) DO UPDATE SET value = excluded.value;

-- An order keeps each product line as it was sold: what the catalogue
-- said of the product (description, code, NCM, CFOP, unit, unit value) when
-- the order was made, its quantity and total. A later change to the
-- product changes no order and no invoice of it. Orders made before this
-- migration had their lines read from the catalogue at every read: they
-- are frozen here at the catalogue's values of the day it runs.
CREATE TABLE sales_order_lines (
	order_id    INTEGER NOT NULL REFERENCES sales_orders(id),
	position    INTEGER NOT NULL,
	product_id  INTEGER NOT NULL REFERENCES products(id),
	code        TEXT NOT NULL,
	description TEXT NOT NULL,
	ncm         TEXT,
	cfop        TEXT,
	unit        TEXT,
	quantity    TEXT NOT NULL,
	unit_value  TEXT NOT NULL,
	total       TEXT NOT NULL,
	PRIMARY KEY (order_id, position)
) STRICT;
CREATE INDEX sales_order_lines_product ON sales_order_lines(product_id);
INSERT INTO sales_order_lines (order_id, position, product_id, code, description, ncm, cfop, unit, quantity, unit_value, total)
	SELECT l.order_id, l.position, l.product_id, p.code, p.description, p.ncm, p.cfop, p.unit, l.quantity, p.monetary_value,
		printf('%.2f', round(CAST(l.quantity AS REAL) * CAST(p.monetary_value AS REAL) + 1e-9, 2))
	FROM sales_order_products l JOIN products p ON p.id = l.product_id;
DROP TABLE sales_order_products;

-- A product's active movements summed by month and type, kept with every
-- movement (see schema.sql); the sums of the movements already there are
-- filled in Go (fillInventoryTotals: values are exact decimals).
CREATE TABLE inventory_month_totals (
	product_id     INTEGER NOT NULL REFERENCES products(id),
	year           INTEGER NOT NULL,
	month          INTEGER NOT NULL CHECK (month BETWEEN 1 AND 12),
	type           TEXT NOT NULL CHECK (type IN ('in', 'out')),
	movements      INTEGER NOT NULL CHECK (movements > 0),
	quantity_milli INTEGER NOT NULL,
	total_value    TEXT NOT NULL,
	PRIMARY KEY (product_id, year, month, type)
) STRICT, WITHOUT ROWID;

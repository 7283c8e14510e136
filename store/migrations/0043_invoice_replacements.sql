-- A national NFS-e's replacement sent (a DPS carrying subst) whose answer
-- did not come: its DPS as signed, asked for by its Id and sent again as
-- it was by the next /replace_nf, never a second note.
CREATE TABLE invoice_replacements (
	order_id   INTEGER PRIMARY KEY REFERENCES sales_orders(id),
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	series     INTEGER NOT NULL,
	number     INTEGER NOT NULL,
	issued_at  TEXT NOT NULL,
	signed     TEXT NOT NULL,
	replaces   TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;

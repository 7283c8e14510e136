-- Invoice numbers taken and then not used: the authority rejected the
-- document (without denying it) or could not be reached. The next invoice
-- of the same kind and series takes the smallest of them before a new
-- one, so a rejection leaves no gap in the series.
CREATE TABLE invoice_free_numbers (
	unit_id INTEGER NOT NULL REFERENCES units(id),
	counter TEXT NOT NULL,
	number  INTEGER NOT NULL,
	PRIMARY KEY (unit_id, counter, number)
) STRICT;

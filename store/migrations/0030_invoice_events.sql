-- The events an authority registered on an invoice, as the issuer keeps
-- them for the accountant and the tax audit: a cancellation (110111, the
-- national NFS-e's e101101) or a correction letter (110110), with the
-- authority's protocol and the document (procEventoNFe; the national
-- system's evento).
CREATE TABLE invoice_events (
	id         INTEGER PRIMARY KEY,
	invoice_id INTEGER NOT NULL REFERENCES invoices(id),
	type       TEXT NOT NULL,
	sequence   INTEGER NOT NULL,
	protocol   TEXT NOT NULL,
	xml        TEXT NOT NULL,
	created_at TEXT NOT NULL,
	UNIQUE (invoice_id, type, sequence)
) STRICT;

-- A unit's fiscal profile: the address, state registration, tax regime and
-- rates its invoices carry, and the NFC-e's CSC (sealed with the
-- operator's secrets key, never in clear). The unit's digital certificate
-- lives beside it, its private key sealed the same way.
ALTER TABLE units ADD COLUMN street TEXT;
ALTER TABLE units ADD COLUMN number TEXT;
ALTER TABLE units ADD COLUMN complement TEXT;
ALTER TABLE units ADD COLUMN district TEXT;
ALTER TABLE units ADD COLUMN zip TEXT;
ALTER TABLE units ADD COLUMN phone TEXT;
ALTER TABLE units ADD COLUMN ie TEXT;
ALTER TABLE units ADD COLUMN crt INTEGER CHECK (crt BETWEEN 1 AND 4);
ALTER TABLE units ADD COLUMN cnae TEXT;
ALTER TABLE units ADD COLUMN icms_rate TEXT;
ALTER TABLE units ADD COLUMN pis_rate TEXT;
ALTER TABLE units ADD COLUMN cofins_rate TEXT;
ALTER TABLE units ADD COLUMN csc_id TEXT;
ALTER TABLE units ADD COLUMN csc_sealed BLOB;
CREATE TABLE unit_certificates (
	unit_id      INTEGER PRIMARY KEY REFERENCES units(id),
	cert         BLOB NOT NULL,
	sealed_key   BLOB NOT NULL,
	cnpj         TEXT NOT NULL,
	subject      TEXT NOT NULL,
	not_before   TEXT NOT NULL,
	not_after    TEXT NOT NULL,
	test         INTEGER NOT NULL DEFAULT 0,
	installed_at TEXT NOT NULL
) STRICT;

-- Where a unit's service invoices are issued: through the national NFS-e
-- system (the default since the national layout became mandatory) or the
-- municipality's own system.
ALTER TABLE units ADD COLUMN nfse_issuer TEXT NOT NULL DEFAULT 'national'
	CHECK (nfse_issuer IN ('national', 'municipal'));

-- A service's operation indicator for IBS and CBS (the national NFS-e's
-- cIndOp, 6 digits): where the service is taken to be supplied.
ALTER TABLE products ADD COLUMN ibs_cbs_operation TEXT;

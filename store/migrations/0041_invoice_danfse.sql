-- The national system's own DANFSe of a national NFS-e (a PDF), fetched
-- once the note is issued and served in place of fincom's rendering.
ALTER TABLE invoices ADD COLUMN danfse BLOB;

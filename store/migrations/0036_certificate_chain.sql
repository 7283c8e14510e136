-- The intermediate certificates that came with a unit's A1 certificate in
-- its PKCS#12 file (DER, one after another): the unit presents them with
-- its own in mutual TLS, as authorities need for ICP-Brasil chains.
ALTER TABLE unit_certificates ADD COLUMN chain BLOB;

-- A product's GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14), its NF-e's cEAN.
ALTER TABLE products ADD COLUMN gtin TEXT;

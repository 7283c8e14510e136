-- The tax reform: a product's or service's IBS and CBS situation code and
-- classification (cClassTrib), and the one an order's line was sold with.
ALTER TABLE products ADD COLUMN ibs_cbs_cst TEXT;
ALTER TABLE products ADD COLUMN ibs_cbs_class TEXT;
ALTER TABLE sales_order_lines ADD COLUMN ibs_cbs_class TEXT;

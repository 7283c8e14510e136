-- Names are listed as a Brazilian reads them: by a Portuguese collation
-- key (golang.org/x/text/collate; letters first, then accents, then case),
-- kept beside each name that listings order by and filled by fincom
-- whenever the name is written. The keys of the rows already there are
-- filled by this migration's Go step (store/sortkey.go).
ALTER TABLE banks ADD COLUMN sort_key BLOB;
ALTER TABLE categories ADD COLUMN sort_key BLOB;
ALTER TABLE category_groups ADD COLUMN sort_key BLOB;
ALTER TABLE contacts ADD COLUMN sort_key BLOB;
ALTER TABLE products ADD COLUMN sort_key BLOB;
ALTER TABLE projects ADD COLUMN sort_key BLOB;
ALTER TABLE users ADD COLUMN sort_key BLOB;
ALTER TABLE contract_templates ADD COLUMN sort_key BLOB;
DROP INDEX contacts_unit_name;
CREATE INDEX contacts_unit_name ON contacts(unit_id, active, sort_key);
DROP INDEX banks_group;
CREATE INDEX banks_group ON banks(group_bank, sort_key);
DROP INDEX products_unit;
CREATE INDEX products_unit ON products(unit_id, active, sort_key);

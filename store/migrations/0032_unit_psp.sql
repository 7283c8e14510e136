-- A unit's connection to its PSP (the Banco Central's API Pix): the
-- addresses, the OAuth client, the secret and the private key of the
-- certificate the PSP issued sealed with the operator's secrets key, and
-- the unit's PIX key there.
CREATE TABLE unit_psp (
	unit_id       INTEGER PRIMARY KEY REFERENCES units(id),
	base_url      TEXT NOT NULL,
	token_url     TEXT NOT NULL,
	client_id     TEXT NOT NULL,
	secret_sealed BLOB NOT NULL,
	cert          BLOB NOT NULL,
	key_sealed    BLOB NOT NULL,
	pix_key       TEXT NOT NULL,
	-- The secret path part of the unit's webhook address (the PSP posts
	-- to it; it names the domain as tokens do).
	webhook_secret TEXT NOT NULL,
	updated_at    TEXT NOT NULL
) STRICT;
-- Each Pix the PSP confirmed and fincom applied, by its end-to-end id:
-- a payment is applied once whatever told of it (webhook, poll).
CREATE TABLE psp_payments (
	end_to_end_id TEXT PRIMARY KEY,
	charge_id     INTEGER NOT NULL REFERENCES charges(id),
	amount        TEXT NOT NULL,
	paid_at       TEXT NOT NULL,
	created_at    TEXT NOT NULL
) STRICT;

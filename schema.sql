-- fincom schema, current version. Fresh domain files are created from this
-- file in one step; existing files are upgraded by store/migrations/, and a
-- test proves both give the same schema.

-- Domain, units, tokens and users.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE access_tokens (
	id         INTEGER PRIMARY KEY,
	hash       BLOB NOT NULL UNIQUE,
	hint       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	revoked_at TEXT,
	-- The user who made it, whose roles it carries (NULL: the operator's,
	-- made with the CLI, which may do everything), and its label.
	user_id    INTEGER REFERENCES users(id),
	label      TEXT
) STRICT;

CREATE TABLE units (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	name       TEXT NOT NULL,
	cnpj       TEXT,
	city_ibge  TEXT,
	im         TEXT,
	created_at TEXT NOT NULL,
	allow_negative_stock INTEGER NOT NULL DEFAULT 0,
	-- The fiscal profile: what the unit's invoices carry.
	street     TEXT,
	number     TEXT,
	complement TEXT,
	district   TEXT,
	zip        TEXT,
	phone      TEXT,
	ie         TEXT,
	crt        INTEGER CHECK (crt BETWEEN 1 AND 4),
	cnae       TEXT,
	icms_rate  TEXT,
	pis_rate   TEXT,
	cofins_rate TEXT,
	csc_id     TEXT,
	-- The NFC-e's CSC, sealed with the operator's secrets key.
	csc_sealed BLOB,
	pix_key    TEXT,
	-- homologacao (tests, no legal value) until production is chosen.
	fiscal_environment TEXT NOT NULL DEFAULT 'homologacao'
		CHECK (fiscal_environment IN ('homologacao', 'producao')),
	-- Service invoices through the national NFS-e system, or the city's.
	nfse_issuer TEXT NOT NULL DEFAULT 'national'
		CHECK (nfse_issuer IN ('national', 'municipal')),
	-- NF-e to the state's contingency authorizer (SVC), or by EPEC, since
	-- when.
	fiscal_contingency TEXT NOT NULL DEFAULT 'off'
		CHECK (fiscal_contingency IN ('off', 'svc', 'epec')),
	fiscal_contingency_since TEXT,
	-- Where the unit's accountant receives the monthly package, if anywhere.
	accountant_email TEXT,
	-- The days after a charge's due date (0 the due day) a unit's collection
	-- schedule e-mails the customer, comma-separated; empty for none. The
	-- notice before the due date stays each order's notify_days_charge.
	reminder_days TEXT NOT NULL DEFAULT '0,3,10',
	-- Whether a unit's charge e-mails carry the order's "Pedido de venda" PDF.
	order_pdf_mail INTEGER NOT NULL DEFAULT 0
) STRICT;

-- A unit's connection to its PSP (the Banco Central's API Pix): the OAuth
-- client's secret and the PSP's certificate's key sealed.
CREATE TABLE unit_psp (
	unit_id       INTEGER PRIMARY KEY REFERENCES units(id),
	base_url      TEXT NOT NULL,
	token_url     TEXT NOT NULL,
	client_id     TEXT NOT NULL,
	secret_sealed BLOB NOT NULL,
	cert          BLOB NOT NULL,
	key_sealed    BLOB NOT NULL,
	pix_key       TEXT NOT NULL,
	-- The secret path part of the unit's webhook address.
	webhook_secret TEXT NOT NULL,
	updated_at    TEXT NOT NULL
) STRICT;

-- A unit's digital certificate (ICP-Brasil A1), its private key sealed
-- with the operator's secrets key.
CREATE TABLE unit_certificates (
	unit_id      INTEGER PRIMARY KEY REFERENCES units(id),
	cert         BLOB NOT NULL,
	sealed_key   BLOB NOT NULL,
	cnpj         TEXT NOT NULL,
	subject      TEXT NOT NULL,
	not_before   TEXT NOT NULL,
	not_after    TEXT NOT NULL,
	test         INTEGER NOT NULL DEFAULT 0,
	installed_at TEXT NOT NULL,
	-- The intermediates that came with it (DER, one after another),
	-- presented with it in mutual TLS.
	chain        BLOB
) STRICT;

CREATE TABLE users (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	name       TEXT NOT NULL,
	email      TEXT NOT NULL UNIQUE COLLATE NOCASE,
	active     INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB
) STRICT;

-- Who may do what: a user's role on one unit, or on every unit (unit_id
-- NULL); a unit's own row wins over the every-unit one.
CREATE TABLE user_roles (
	id      INTEGER PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id),
	unit_id INTEGER REFERENCES units(id),
	-- none: held back from a unit the every-unit row gives.
	role    TEXT NOT NULL CHECK (role IN ('owner', 'finance', 'sales', 'accountant', 'none'))
) STRICT;
CREATE UNIQUE INDEX user_roles_unit ON user_roles (user_id, coalesce(unit_id, 0));

-- The portal's sign-in (store/sessions.go): single-use links a user gets
-- by e-mail, and the sessions they start. Only hashes of their secrets.
CREATE TABLE portal_links (
	hash       BLOB PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id),
	expires_at TEXT NOT NULL,
	used_at    TEXT
) STRICT;
CREATE TABLE portal_sessions (
	hash       BLOB PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id),
	csrf       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	ended_at   TEXT
) STRICT;

-- Registers.
CREATE TABLE contacts (
	id            INTEGER PRIMARY KEY,
	token         TEXT NOT NULL UNIQUE,
	unit_id       INTEGER NOT NULL REFERENCES units(id),
	type          TEXT NOT NULL CHECK (type IN ('natural_person', 'legal')),
	register      TEXT NOT NULL,
	display_name  TEXT NOT NULL,
	full_name     TEXT,
	social_reason TEXT,
	fantasy_name  TEXT,
	birth_date    TEXT,
	phone         TEXT,
	email         TEXT,
	address       TEXT,
	number        TEXT,
	complement    TEXT,
	neighborhood  TEXT,
	city          TEXT,
	state         TEXT,
	zip_code      TEXT,
	observation   TEXT,
	data_bank     TEXT,
	active        INTEGER NOT NULL DEFAULT 1,
	created_at    TEXT NOT NULL,
	updated_at    TEXT NOT NULL,
	city_ibge     TEXT,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB,
	-- The inscrição estadual (digits or ISENTO) and the NF-e's
	-- indIEDest (1, 2 or 9; NULL: derived from the registration).
	state_registration TEXT,
	icms_contributor   TEXT CHECK (icms_contributor IN ('1', '2', '9')),
	-- Whom the firm deals with: a customer, a supplier, or (NULL) both.
	kind               TEXT CHECK (kind IN ('customer', 'supplier'))
) STRICT;
CREATE UNIQUE INDEX contacts_unit_register ON contacts(unit_id, register);
CREATE INDEX contacts_unit_name ON contacts(unit_id, active, sort_key);
-- Contact search by name: a trigram index lets "search" find the few
-- contacts whose names contain a text without reading every contact of the
-- unit. The index is contentless (the names stay in contacts) and holds the
-- names folded (lower case, no accents: fincom_fold, store/fold.go); its
-- trigrams may come from apart or from two names sharing the column, so the
-- listing checks each row it finds with the same fold.
CREATE VIRTUAL TABLE contacts_fts USING fts5(names, content = '', contentless_delete = 1, tokenize = 'trigram');
-- Any two segments of a level may merge: the writer merges a step at a
-- time whenever it is idle (see 0021_search_merge.sql).
INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('usermerge', 2);
-- The triggers queue the contacts a transaction changed; the writer
-- indexes them once, just before it commits (DB.indexSearch): FTS5 writes
-- a segment at every savepoint, and each write of a batch has its own.
CREATE TABLE contacts_fts_pending (
	contact_id INTEGER PRIMARY KEY,
	indexed    INTEGER NOT NULL -- 1: the index holds an entry of it to remove first
) STRICT;
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
	INSERT INTO contacts_fts_pending (contact_id, indexed) VALUES (new.id, 0) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF full_name, social_reason, fantasy_name ON contacts BEGIN
	INSERT INTO contacts_fts_pending (contact_id, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
	INSERT INTO contacts_fts_pending (contact_id, indexed) VALUES (old.id, 1) ON CONFLICT DO NOTHING;
END;

CREATE TABLE category_groups (
	code        INTEGER PRIMARY KEY,
	module_type TEXT NOT NULL CHECK (module_type IN ('in', 'out')),
	name        TEXT NOT NULL,
	description TEXT NOT NULL,
	active      INTEGER NOT NULL DEFAULT 1,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB
) STRICT;

CREATE TABLE categories (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	module_type TEXT NOT NULL CHECK (module_type IN ('in', 'out')),
	name        TEXT NOT NULL,
	note        TEXT,
	group_code  INTEGER REFERENCES category_groups(code),
	active      INTEGER NOT NULL DEFAULT 1,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB
) STRICT;
CREATE UNIQUE INDEX categories_unit_name ON categories(unit_id, module_type, name COLLATE NOCASE);

CREATE TABLE projects (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	name        TEXT NOT NULL,
	observation TEXT,
	budget      TEXT NOT NULL DEFAULT '0.00',
	active      INTEGER NOT NULL DEFAULT 1,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB
) STRICT;
CREATE INDEX projects_unit ON projects(unit_id, active);

CREATE TABLE banks (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	code       TEXT NOT NULL UNIQUE,
	ispb       TEXT NOT NULL,
	name       TEXT NOT NULL,
	group_bank TEXT NOT NULL,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB
) STRICT;
CREATE INDEX banks_group ON banks(group_bank, sort_key);

CREATE TABLE bank_types (
	id    INTEGER PRIMARY KEY,
	token TEXT NOT NULL UNIQUE,
	key   TEXT NOT NULL UNIQUE,
	name  TEXT NOT NULL
) STRICT;

CREATE TABLE bank_accounts (
	id                   INTEGER PRIMARY KEY,
	token                TEXT NOT NULL UNIQUE,
	unit_id              INTEGER NOT NULL REFERENCES units(id),
	bank_id              INTEGER NOT NULL REFERENCES banks(id),
	bank_type_id         INTEGER NOT NULL REFERENCES bank_types(id),
	agency               TEXT,
	dv_agencia           TEXT,
	current_account      TEXT,
	dv_conta             TEXT,
	nick_name            TEXT,
	observation          TEXT,
	opening_balance      TEXT NOT NULL DEFAULT '0.00',
	opening_balance_date TEXT,
	active               INTEGER NOT NULL DEFAULT 1,
	created_at           TEXT NOT NULL,
	updated_at           TEXT NOT NULL
) STRICT;
CREATE INDEX bank_accounts_unit ON bank_accounts(unit_id, active);

CREATE TABLE products (
	id             INTEGER PRIMARY KEY,
	token          TEXT NOT NULL UNIQUE,
	unit_id        INTEGER NOT NULL REFERENCES units(id),
	description    TEXT NOT NULL,
	type           TEXT NOT NULL CHECK (type IN ('product', 'service')),
	monetary_value TEXT NOT NULL DEFAULT '0.00',
	usage_type     TEXT NOT NULL,
	ncm            TEXT,
	cfop           TEXT,
	unit           TEXT,
	active         INTEGER NOT NULL DEFAULT 1,
	created_at     TEXT NOT NULL,
	updated_at     TEXT NOT NULL,
	-- The product's own code (the NF-e's cProd), unique in the unit.
	code           TEXT,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB,
	-- The tax reform's situation code and classification (cClassTrib);
	-- none takes the default (full taxation).
	ibs_cbs_cst    TEXT,
	ibs_cbs_class  TEXT,
	-- A service's operation indicator (the national NFS-e's cIndOp).
	ibs_cbs_operation TEXT,
	-- A product's GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14), its NF-e's cEAN.
	gtin TEXT
) STRICT;
CREATE INDEX products_unit ON products(unit_id, active, sort_key);
CREATE UNIQUE INDEX products_code ON products(unit_id, code);

CREATE TABLE payment_methods (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	payment_key TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	active      INTEGER NOT NULL DEFAULT 1
) STRICT;

CREATE TABLE screenings (
	id             INTEGER PRIMARY KEY,
	token          TEXT NOT NULL UNIQUE,
	unit_id        INTEGER NOT NULL REFERENCES units(id),
	status         TEXT NOT NULL CHECK (status IN ('pending', 'converted', 'discarded')),
	file_name      TEXT NOT NULL,
	content_type   TEXT NOT NULL,
	size           INTEGER NOT NULL,
	sha256         TEXT NOT NULL,
	data           BLOB NOT NULL,
	extracted      TEXT NOT NULL,
	note           TEXT,
	created_at     TEXT NOT NULL,
	updated_at     TEXT NOT NULL
) STRICT;
CREATE INDEX screenings_unit ON screenings(unit_id, status, id);

CREATE TABLE entries (
	id                INTEGER PRIMARY KEY,
	token             TEXT NOT NULL UNIQUE,
	unit_id           INTEGER NOT NULL REFERENCES units(id),
	type              TEXT NOT NULL CHECK (type IN ('in', 'out')),
	description       TEXT NOT NULL,
	value             TEXT NOT NULL,
	value_cents       INTEGER NOT NULL CHECK (value_cents > 0),
	due_date          TEXT NOT NULL,
	pay_day           TEXT,
	competence_date   TEXT,
	category_id       INTEGER REFERENCES categories(id),
	contact_id        INTEGER REFERENCES contacts(id),
	bank_account_id   INTEGER REFERENCES bank_accounts(id),
	project_id        INTEGER REFERENCES projects(id),
	payment_method_id INTEGER REFERENCES payment_methods(id),
	user_id           INTEGER REFERENCES users(id),
	screening_id      INTEGER REFERENCES screenings(id),
	barcode           TEXT,
	access_key        TEXT,
	key_method_credor TEXT,
	note              TEXT,
	private           INTEGER NOT NULL DEFAULT 0,
	active            INTEGER NOT NULL DEFAULT 1,
	conciliation_date TEXT,
	id_ofx            TEXT,
	created_at        TEXT NOT NULL,
	updated_at        TEXT NOT NULL,
	-- The order whose charge's payment booked this income: the accrual
	-- basis counts the order, not this entry.
	sales_order_id    INTEGER REFERENCES sales_orders(id),
	-- An instalment of a bill or income split in parts: its number, how
	-- many, and the group's token they share.
	installment       INTEGER,
	installments      INTEGER,
	group_token       TEXT,
	-- The recurrence that made this occurrence (its first included).
	recurrence_id     INTEGER REFERENCES entry_recurrences(id),
	-- The charge whose payment booked this entry: its principal, a late
	-- payment's fine and interest (each an entry of its own), or a part a
	-- statement line paid. Undoing the line that paid it disables them.
	charge_id         INTEGER REFERENCES charges(id)
) STRICT;
CREATE INDEX entries_group ON entries(unit_id, group_token) WHERE group_token IS NOT NULL;
-- A bill or income that repeats every every_months months from its first
-- occurrence (model_id, due anchor_due): times in all, or until a due
-- date, or until stopped. The daily job makes each occurrence lead_days
-- before it is due; made counts those made, so that none is made twice.
CREATE TABLE entry_recurrences (
	id           INTEGER PRIMARY KEY,
	token        TEXT NOT NULL UNIQUE,
	unit_id      INTEGER NOT NULL REFERENCES units(id),
	model_id     INTEGER NOT NULL REFERENCES entries(id),
	anchor_due   TEXT NOT NULL,
	every_months INTEGER NOT NULL CHECK (every_months BETWEEN 1 AND 12),
	times        INTEGER CHECK (times BETWEEN 2 AND 120),
	until_date   TEXT,
	lead_days    INTEGER NOT NULL CHECK (lead_days BETWEEN 0 AND 60),
	made         INTEGER NOT NULL,
	stopped_at   TEXT,
	created_at   TEXT NOT NULL
) STRICT;
-- The listing reads one unit's entries by due date: a month's query touches
-- that month's rows only, whatever the size of the history.
CREATE INDEX entries_unit_due ON entries(unit_id, due_date);
-- The cash flow reads paid entries by payment date.
CREATE INDEX entries_unit_paid ON entries(unit_id, pay_day) WHERE pay_day IS NOT NULL;
CREATE INDEX entries_contact ON entries(contact_id);
CREATE INDEX entries_bank_account ON entries(bank_account_id) WHERE pay_day IS NOT NULL;

CREATE TABLE entry_files (
	id           INTEGER PRIMARY KEY,
	token        TEXT NOT NULL UNIQUE,
	entry_id     INTEGER NOT NULL REFERENCES entries(id),
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	sha256       TEXT NOT NULL,
	data         BLOB NOT NULL,
	created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX entry_files_entry ON entry_files(entry_id);

-- Sales orders, their product lines, per-unit counters (order codes are
-- never reused) and the record of scheduled job runs.
CREATE TABLE unit_counters (
	unit_id INTEGER NOT NULL REFERENCES units(id),
	name    TEXT NOT NULL,
	value   INTEGER NOT NULL,
	PRIMARY KEY (unit_id, name)
) STRICT;

-- Invoice numbers taken and then not used: the authority rejected the
-- document (without denying it) or could not be reached. The next invoice
-- of the same kind and series takes the smallest of them before a new
-- one, so a rejection leaves no gap in the series.
CREATE TABLE invoice_free_numbers (
	unit_id INTEGER NOT NULL REFERENCES units(id),
	counter TEXT NOT NULL,
	number  INTEGER NOT NULL,
	PRIMARY KEY (unit_id, counter, number)
) STRICT;

CREATE TABLE sales_orders (
	id                      INTEGER PRIMARY KEY,
	token                   TEXT NOT NULL UNIQUE,
	unit_id                 INTEGER NOT NULL REFERENCES units(id),
	cod_seq                 INTEGER NOT NULL,
	cod_orders              TEXT NOT NULL,
	active                  INTEGER NOT NULL DEFAULT 1,
	origin_id               INTEGER REFERENCES sales_orders(id),
	recurrence_month        TEXT,
	contact_id              INTEGER NOT NULL REFERENCES contacts(id),
	stock_item_id           INTEGER REFERENCES products(id),
	category_id             INTEGER NOT NULL REFERENCES categories(id),
	project_id              INTEGER REFERENCES projects(id),
	bank_account_id         INTEGER REFERENCES bank_accounts(id),
	bank_account_payment_id INTEGER REFERENCES bank_accounts(id),
	payment_method_id       INTEGER NOT NULL REFERENCES payment_methods(id),
	description             TEXT NOT NULL,
	value                   TEXT NOT NULL,
	value_cents             INTEGER NOT NULL,
	quantity                TEXT NOT NULL,
	estimated_payment_date  TEXT NOT NULL,
	recurrence              INTEGER NOT NULL DEFAULT 0,
	in_automation           INTEGER NOT NULL DEFAULT 0,
	conciliation            INTEGER NOT NULL DEFAULT 0,
	provider_bank           TEXT,
	installment_credit      INTEGER NOT NULL DEFAULT 1,
	installments            INTEGER NOT NULL DEFAULT 1,
	pix_key                 TEXT,
	notify_days_charge      INTEGER NOT NULL DEFAULT 0,
	notify_email_charge     TEXT,
	notify_email_nf         TEXT,
	notify_email_alert      TEXT,
	observation_sales       TEXT,
	nf_kind                 TEXT,
	generate_nf_webhook     INTEGER NOT NULL DEFAULT 0,
	tipo_documento          TEXT,
	finalidade_emissao      TEXT,
	presenca_comprador      TEXT,
	consumidor_final        TEXT,
	service_assoc_id        TEXT,
	service_id              TEXT,
	service_cod             TEXT,
	service_location        TEXT,
	freight_mode            INTEGER NOT NULL DEFAULT 9,
	freight_total           TEXT NOT NULL DEFAULT '0.00',
	local_destino           INTEGER NOT NULL DEFAULT 1,
	taxes                   TEXT NOT NULL,
	charge_status           TEXT NOT NULL DEFAULT 'NONE',
	nf                      INTEGER NOT NULL DEFAULT 0,
	revenue                 INTEGER NOT NULL DEFAULT 0,
	charge                  INTEGER NOT NULL DEFAULT 0,
	cancel_nf               INTEGER NOT NULL DEFAULT 0,
	cancel_charge           INTEGER NOT NULL DEFAULT 0,
	date_nf                 TEXT,
	date_revenue            TEXT,
	date_charge             TEXT,
	date_cancel_nf          TEXT,
	date_cancel_charge      TEXT,
	date_payment            TEXT,
	nf_status_text          TEXT,
	created_at              TEXT NOT NULL,
	updated_at              TEXT NOT NULL,
	public_token            TEXT,
	requested_payment_mode  TEXT,
	charge_on_pix_acceptance INTEGER NOT NULL DEFAULT 0,
	pix_accepted_at         TEXT
) STRICT;
CREATE UNIQUE INDEX sales_orders_code ON sales_orders(unit_id, cod_seq);
-- One generated order per origin and month: the recurrence job may run
-- twice for a day and create nothing more.
CREATE UNIQUE INDEX sales_orders_recurrence ON sales_orders(origin_id, recurrence_month) WHERE origin_id IS NOT NULL;
CREATE INDEX sales_orders_unit_date ON sales_orders(unit_id, estimated_payment_date);
CREATE INDEX sales_orders_recurring ON sales_orders(recurrence) WHERE recurrence = 1;

-- An order's product lines as they were sold: what the catalogue said of
-- each product when the order was made, its quantity and total.
CREATE TABLE sales_order_lines (
	order_id    INTEGER NOT NULL REFERENCES sales_orders(id),
	position    INTEGER NOT NULL,
	product_id  INTEGER NOT NULL REFERENCES products(id),
	code        TEXT NOT NULL,
	description TEXT NOT NULL,
	ncm         TEXT,
	cfop        TEXT,
	unit        TEXT,
	quantity    TEXT NOT NULL,
	unit_value  TEXT NOT NULL,
	total       TEXT NOT NULL,
	ibs_cbs_class TEXT,
	PRIMARY KEY (order_id, position)
) STRICT;
CREATE INDEX sales_order_lines_product ON sales_order_lines(product_id);

CREATE TABLE job_runs (
	id          INTEGER PRIMARY KEY,
	job         TEXT NOT NULL,
	run_date    TEXT NOT NULL,
	created     INTEGER NOT NULL,
	detail      TEXT NOT NULL,
	finished_at TEXT NOT NULL,
	UNIQUE (job, run_date)
) STRICT;

-- Charges of sales orders through collection providers, the order's public
-- token for the payment portal, the portal's events and the e-mail outbox.
CREATE UNIQUE INDEX sales_orders_public_token ON sales_orders(public_token) WHERE public_token IS NOT NULL;

CREATE TABLE bank_agreements (
	id              INTEGER PRIMARY KEY,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	provider        TEXT NOT NULL,
	bank            TEXT NOT NULL,
	agency          TEXT NOT NULL,
	agency_dv       TEXT NOT NULL DEFAULT '',
	account         TEXT NOT NULL,
	account_dv      TEXT NOT NULL,
	wallet          TEXT NOT NULL,
	code            TEXT NOT NULL DEFAULT '',
	next_our_number INTEGER NOT NULL CHECK (next_our_number > 0),
	remittance_seq  INTEGER NOT NULL DEFAULT 0,
	bank_account_id INTEGER REFERENCES bank_accounts(id),
	simulated       INTEGER NOT NULL DEFAULT 0,
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL,
	-- The late terms an agreement's boletos state: a fine once, in percent,
	-- and simple interest in percent a month (of 30 days, by calendar day).
	fine_percent TEXT NOT NULL DEFAULT '2',
	interest_percent TEXT NOT NULL DEFAULT '1',
	-- Banco do Brasil's wallet variation ("variação da carteira"), which its
	-- files carry beside the wallet; empty for the other banks.
	variation TEXT NOT NULL DEFAULT '',
	UNIQUE (unit_id, provider)
) STRICT;
-- Remittance files as sent: numbered in sequence per agreement, kept to be
-- downloaded again.
CREATE TABLE remittances (
	id           INTEGER PRIMARY KEY,
	agreement_id INTEGER NOT NULL REFERENCES bank_agreements(id),
	sequence     INTEGER NOT NULL,
	content      BLOB NOT NULL,
	titles       INTEGER NOT NULL,
	created_at   TEXT NOT NULL,
	UNIQUE (agreement_id, sequence)
) STRICT;
-- Return files applied, by their SHA-256: the same file twice changes
-- nothing. report is the per-line outcome as JSON.
CREATE TABLE return_files (
	id           INTEGER PRIMARY KEY,
	agreement_id INTEGER NOT NULL REFERENCES bank_agreements(id),
	sha256       TEXT NOT NULL,
	name         TEXT,
	report       TEXT NOT NULL,
	imported_at  TEXT NOT NULL,
	UNIQUE (agreement_id, sha256)
) STRICT;

CREATE TABLE charges (
	id                INTEGER PRIMARY KEY,
	token             TEXT NOT NULL UNIQUE,
	order_id          INTEGER NOT NULL REFERENCES sales_orders(id),
	installment       INTEGER NOT NULL,
	installments      INTEGER NOT NULL,
	idempotency_key   TEXT NOT NULL UNIQUE,
	provider          TEXT NOT NULL,
	payment_key       TEXT NOT NULL,
	status            TEXT NOT NULL CHECK (status IN ('ISSUING', 'PENDING', 'PAID', 'OVERDUE', 'CANCELLED')),
	amount            TEXT NOT NULL,
	due_date          TEXT NOT NULL,
	boleto_line       TEXT,
	boleto_barcode    TEXT,
	pix_payload       TEXT,
	pix_txid          TEXT,
	provider_ref      TEXT,
	card_installments INTEGER,
	paid_at           TEXT,
	paid_amount       TEXT,
	cancelled_at      TEXT,
	created_at        TEXT NOT NULL,
	updated_at        TEXT NOT NULL,
	-- How a confirmed payment met the charge (store.Settlement*).
	settlement        TEXT CHECK (settlement IN ('exact', 'partial', 'over', 'late')),
	agreement_id INTEGER REFERENCES bank_agreements(id),
	our_number TEXT,
	registration TEXT CHECK (registration IN ('simulated', 'pending', 'sent', 'registered', 'rejected')),
	registration_reason TEXT,
	remittance_id INTEGER REFERENCES remittances(id),
	writeoff TEXT CHECK (writeoff IN ('pending', 'sent', 'done')),
	writeoff_remittance_id INTEGER REFERENCES remittances(id),
	fee TEXT,
	credit_date TEXT,
	paid_via TEXT,
	-- What the PSP gave back of its payment (psp_refunds DEVOLVIDO).
	refunded_amount TEXT,
	-- A registered boleto given a new due date: the change waits for the next
	-- remittance (movement 06) and is then sent.
	due_change TEXT CHECK (due_change IN ('pending', 'sent')),
	due_change_remittance_id INTEGER REFERENCES remittances(id)
) STRICT;
-- An installment has at most one live charge: it is never issued twice.
CREATE UNIQUE INDEX charges_live ON charges(order_id, installment) WHERE status <> 'CANCELLED';
CREATE INDEX charges_due ON charges(status, due_date);
CREATE UNIQUE INDEX charges_our_number ON charges(agreement_id, our_number);

CREATE TABLE portal_events (
	id         INTEGER PRIMARY KEY,
	order_id   INTEGER NOT NULL REFERENCES sales_orders(id),
	kind       TEXT NOT NULL,
	detail     TEXT,
	created_at TEXT NOT NULL
) STRICT;
CREATE INDEX portal_events_order ON portal_events(order_id, id);

CREATE TABLE outbox (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	order_id    INTEGER REFERENCES sales_orders(id),
	kind        TEXT NOT NULL,
	dedupe_key  TEXT UNIQUE,
	to_addr     TEXT NOT NULL,
	subject     TEXT NOT NULL,
	body        TEXT NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
	attempts    INTEGER NOT NULL DEFAULT 0,
	next_try_at TEXT NOT NULL,
	last_error  TEXT,
	sent_at     TEXT,
	created_at  TEXT NOT NULL,
	-- A secret the body carries, sealed with the server's key: the body
	-- holds store.SealedMark in its place (a sign-in link).
	sealed      BLOB
) STRICT;
CREATE INDEX outbox_pending ON outbox(status, next_try_at);

-- Files an e-mail carries (an invoice's XML and DANFE), as they were when
-- the message was queued: a retry sends the same bytes. Once the message
-- is sent its files' bytes are dropped (data NULL; the invoice keeps its
-- documents), so that a domain does not keep a copy of every e-mail.
CREATE TABLE outbox_attachments (
	outbox_id    INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
	position     INTEGER NOT NULL,
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	data         BLOB,
	PRIMARY KEY (outbox_id, position)
) STRICT;

-- Fiscal invoices of sales orders, with the authority's verdict: a
-- rejected invoice holds no number (it went back to the series), a denied
-- one spends it. status_code and status_text are the authority's code and
-- text of its verdict (for the order's nf_status_text).
CREATE TABLE invoices (
	id            INTEGER PRIMARY KEY,
	token         TEXT NOT NULL UNIQUE,
	order_id      INTEGER NOT NULL REFERENCES sales_orders(id),
	unit_id       INTEGER NOT NULL REFERENCES units(id),
	kind          TEXT NOT NULL CHECK (kind IN ('nfe', 'nfce', 'nfse', 'nfsen')),
	status        TEXT NOT NULL CHECK (status IN ('AUTHORIZED', 'CANCELLED', 'REJECTED', 'DENIED')),
	series        INTEGER NOT NULL,
	number        INTEGER NOT NULL,
	access_key    TEXT,
	verification  TEXT,
	protocol      TEXT NOT NULL,
	xml           TEXT NOT NULL,
	issued_at     TEXT NOT NULL,
	cancelled_at  TEXT,
	cancel_reason TEXT,
	status_code   INTEGER,
	status_text   TEXT,
	-- A cancellation sent whose answer was lost: its reason, until the
	-- authority confirms or refuses it, and the times asked since.
	cancel_pending TEXT,
	cancel_tries  INTEGER NOT NULL DEFAULT 0,
	-- The national system's own DANFSe of a national NFS-e (a PDF).
	danfse        BLOB
) STRICT;
CREATE UNIQUE INDEX invoices_number ON invoices(unit_id, kind, series, number) WHERE status <> 'REJECTED';
CREATE INDEX invoices_order ON invoices(order_id);
CREATE INDEX invoices_cancel_pending ON invoices(id) WHERE cancel_pending IS NOT NULL;
CREATE UNIQUE INDEX invoices_live ON invoices(order_id) WHERE status = 'AUTHORIZED';

-- The events an authority registered on an invoice, as the issuer keeps
-- them: a cancellation (110111, the national NFS-e's e101101) or a
-- correction letter (110110), with the protocol and the document
-- (procEventoNFe; the national system's evento).
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

-- A note sent whose answer was lost: its number, key and issue time wait
-- here, so that issuing again sends the same note after asking the
-- authority, never a second one.
CREATE TABLE invoice_transmissions (
	order_id   INTEGER PRIMARY KEY REFERENCES sales_orders(id),
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	kind       TEXT NOT NULL,
	series     INTEGER NOT NULL,
	number     INTEGER NOT NULL,
	access_key TEXT NOT NULL,
	issued_at  TEXT NOT NULL,
	-- The note as signed and sent: sent again as it was, never rebuilt
	-- from an order changed since.
	signed     TEXT NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 1,
	last_error TEXT,
	updated_at TEXT NOT NULL,
	-- The token the note's invoice keeps, from pending to its verdict.
	token      TEXT
) STRICT;

-- A note sent whose answer never came, replaced for its sale by a note
-- issued in contingency under a fresh number (an NFC-e offline). Once
-- SEFAZ answers, its key is asked for: authorized after all, it is
-- cancelled by substitution naming the note that replaced it; unknown,
-- its number is voided. It is never sent again.
CREATE TABLE abandoned_notes (
	id         INTEGER PRIMARY KEY,
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	order_id   INTEGER NOT NULL REFERENCES sales_orders(id),
	kind       TEXT NOT NULL,
	series     INTEGER NOT NULL,
	number     INTEGER NOT NULL,
	access_key TEXT NOT NULL UNIQUE,
	issued_at  TEXT NOT NULL,
	signed     TEXT NOT NULL,
	status     TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'substituted', 'voided')),
	-- What ended it at the authority: the substitution's or the voiding's
	-- protocol and document.
	protocol   TEXT,
	xml        TEXT,
	attempts   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX abandoned_notes_open ON abandoned_notes(status) WHERE status = 'open';

-- A national NFS-e's replacement sent (a DPS carrying subst) whose answer
-- did not come: its DPS as signed, asked for by its Id and sent again as
-- it was by the next /replace_nf, never a second note.
CREATE TABLE invoice_replacements (
	order_id   INTEGER PRIMARY KEY REFERENCES sales_orders(id),
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	series     INTEGER NOT NULL,
	number     INTEGER NOT NULL,
	issued_at  TEXT NOT NULL,
	signed     TEXT NOT NULL,
	replaces   TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;

-- Inventory movements, the NF-e inbox and purchase orders.
CREATE TABLE inventory_movements (
	id              INTEGER PRIMARY KEY,
	token           TEXT NOT NULL UNIQUE,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	product_id      INTEGER NOT NULL REFERENCES products(id),
	contact_id      INTEGER REFERENCES contacts(id),
	purchase_id     INTEGER,
	type            TEXT NOT NULL CHECK (type IN ('in', 'out')),
	quantity        TEXT NOT NULL,
	quantity_milli  INTEGER NOT NULL CHECK (quantity_milli > 0),
	unitary_value   TEXT NOT NULL,
	total_value     TEXT NOT NULL,
	lote            TEXT,
	validation_date TEXT,
	date_in_out     TEXT NOT NULL,
	active          INTEGER NOT NULL DEFAULT 1,
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL
) STRICT;
-- The yearly inventory report reads a year of movements by product, month
-- and type: with those columns in the index it never visits the table.
CREATE INDEX inventory_unit_date ON inventory_movements(unit_id, active, date_in_out, product_id, type, quantity_milli, total_value);
CREATE INDEX inventory_product ON inventory_movements(product_id, active);

-- A product's stock, kept with every movement in the same transaction, so
-- that checking an exit does not sum the product's history.
CREATE TABLE product_stock (
	product_id    INTEGER PRIMARY KEY REFERENCES products(id),
	balance_milli INTEGER NOT NULL
) STRICT;

-- A product's active movements summed by month and type, kept with every
-- movement in the same transaction: the yearly report reads at most 24
-- rows a product, whatever the history (BenchmarkInventoryReports;
-- TestInventoryTotalsFollowMovements holds it equal to the movements).
-- A key whose movements are all inactive has no row.
CREATE TABLE inventory_month_totals (
	product_id     INTEGER NOT NULL REFERENCES products(id),
	year           INTEGER NOT NULL,
	month          INTEGER NOT NULL CHECK (month BETWEEN 1 AND 12),
	type           TEXT NOT NULL CHECK (type IN ('in', 'out')),
	movements      INTEGER NOT NULL CHECK (movements > 0),
	quantity_milli INTEGER NOT NULL,
	total_value    TEXT NOT NULL,
	PRIMARY KEY (product_id, year, month, type)
) STRICT, WITHOUT ROWID;

CREATE TABLE nfe_inbox (
	id             INTEGER PRIMARY KEY,
	token          TEXT NOT NULL UNIQUE,
	unit_id        INTEGER NOT NULL REFERENCES units(id),
	access_key     TEXT NOT NULL,
	supplier_cnpj  TEXT NOT NULL,
	supplier_name  TEXT NOT NULL,
	issue_date     TEXT,
	total_value    TEXT NOT NULL,
	xml            TEXT NOT NULL,
	manifestation  TEXT,
	manifested_at  TEXT,
	justification  TEXT,
	created_at     TEXT NOT NULL,
	-- The manifestation as sent to the national environment: registered
	-- or refused, with the authority's reply; null while it waits.
	manifestation_sent  TEXT CHECK (manifestation_sent IN ('registered', 'refused')),
	manifestation_reply TEXT,
	-- When the note's authority confirmed it as authorized with this
	-- content; null: not confirmed.
	confirmed_at TEXT,
	-- A summary (resNFe) until the full note replaces it; the note's
	-- standing at the authority as the distribution says it.
	summary   INTEGER NOT NULL DEFAULT 0,
	situation TEXT CHECK (situation IN ('authorized', 'denied', 'cancelled')),
	UNIQUE (unit_id, access_key)
) STRICT;

CREATE TABLE purchase_orders (
	id              INTEGER PRIMARY KEY,
	token           TEXT NOT NULL UNIQUE,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	code            TEXT NOT NULL,
	access_key      TEXT NOT NULL,
	status          TEXT NOT NULL CHECK (status IN ('awaiting_xml', 'complete')),
	issue_date      TEXT,
	estimated_payment_date TEXT,
	contact_id      INTEGER REFERENCES contacts(id),
	supplier_name   TEXT NOT NULL,
	supplier_cnpj   TEXT NOT NULL,
	category_id     INTEGER REFERENCES categories(id),
	project_id      INTEGER REFERENCES projects(id),
	total_value     TEXT NOT NULL,
	items_total     TEXT NOT NULL,
	items_tax_total TEXT NOT NULL,
	freight_value   TEXT NOT NULL,
	total_tax       TEXT NOT NULL,
	items           TEXT NOT NULL,
	xml_file_name   TEXT,
	files_name      TEXT NOT NULL,
	pdfs_name       TEXT NOT NULL,
	key_info        TEXT NOT NULL,
	active          INTEGER NOT NULL DEFAULT 1,
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL,
	UNIQUE (unit_id, access_key)
) STRICT;
CREATE INDEX purchase_orders_unit_date ON purchase_orders(unit_id, estimated_payment_date);

-- CRM records, contract templates, contracts and their files.
CREATE TABLE crm_records (
	id                    INTEGER PRIMARY KEY,
	token                 TEXT NOT NULL UNIQUE,
	unit_id               INTEGER NOT NULL REFERENCES units(id),
	contact_id            INTEGER REFERENCES contacts(id),
	record_date           TEXT NOT NULL,
	communication_type    TEXT,
	lifecycle_phase       TEXT,
	lead_status           TEXT,
	description           TEXT,
	contact_success       INTEGER NOT NULL DEFAULT 0,
	next_contact_datetime TEXT,
	next_contact_reason   TEXT,
	active                INTEGER NOT NULL DEFAULT 1,
	created_at            TEXT NOT NULL,
	updated_at            TEXT NOT NULL
) STRICT;
CREATE INDEX crm_unit_date ON crm_records(unit_id, record_date);

CREATE TABLE contract_templates (
	id          INTEGER PRIMARY KEY,
	token       TEXT NOT NULL UNIQUE,
	unit_id     INTEGER NOT NULL REFERENCES units(id),
	name        TEXT NOT NULL,
	body_html   TEXT NOT NULL,
	page_css    TEXT NOT NULL,
	header_html TEXT,
	footer_html TEXT,
	is_default  INTEGER NOT NULL DEFAULT 0,
	active      INTEGER NOT NULL DEFAULT 1,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL,
	-- The name's Portuguese collation key: listings order by it.
	sort_key       BLOB
) STRICT;
CREATE UNIQUE INDEX contract_templates_default ON contract_templates(unit_id) WHERE is_default = 1;

CREATE TABLE contracts (
	id                INTEGER PRIMARY KEY,
	token             TEXT NOT NULL UNIQUE,
	unit_id           INTEGER NOT NULL REFERENCES units(id),
	contact_id        INTEGER NOT NULL REFERENCES contacts(id),
	template_id       INTEGER REFERENCES contract_templates(id),
	contract_name     TEXT NOT NULL,
	status            TEXT NOT NULL CHECK (status IN ('draft', 'active', 'expired', 'cancelled')),
	validity_start    TEXT NOT NULL,
	validity_end      TEXT,
	is_recurring      INTEGER NOT NULL DEFAULT 0,
	recurrence_type   TEXT CHECK (recurrence_type IN ('unique', 'monthly', 'yearly')),
	generates_payment INTEGER NOT NULL DEFAULT 0,
	auto_extend       INTEGER NOT NULL DEFAULT 0,
	description       TEXT,
	sales_order_id    INTEGER REFERENCES sales_orders(id),
	active            INTEGER NOT NULL DEFAULT 1,
	created_at        TEXT NOT NULL,
	updated_at        TEXT NOT NULL
) STRICT;
CREATE INDEX contracts_unit ON contracts(unit_id, active, validity_start);

CREATE TABLE contract_orders (
	contract_id INTEGER NOT NULL REFERENCES contracts(id),
	order_id    INTEGER NOT NULL REFERENCES sales_orders(id),
	PRIMARY KEY (contract_id, order_id)
) STRICT;

CREATE TABLE contract_files (
	id           INTEGER PRIMARY KEY,
	token        TEXT NOT NULL UNIQUE,
	contract_id  INTEGER NOT NULL REFERENCES contracts(id),
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	sha256       TEXT NOT NULL,
	data         BLOB NOT NULL,
	created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX contract_files_contract ON contract_files(contract_id);

-- A contract's billing: one order per period, made once.
CREATE TABLE contract_billing (
	contract_id INTEGER NOT NULL REFERENCES contracts(id),
	period      INTEGER NOT NULL,
	order_id    INTEGER NOT NULL REFERENCES sales_orders(id),
	PRIMARY KEY (contract_id, period)
) STRICT;

-- Outbound webhooks per unit and their deliveries (written in the same
-- transaction as the change they report, delivered by the scheduler).
CREATE TABLE webhooks (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	url        TEXT NOT NULL,
	secret     TEXT NOT NULL,
	events     TEXT NOT NULL,
	active     INTEGER NOT NULL DEFAULT 1,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX webhooks_unit ON webhooks(unit_id, active);

CREATE TABLE webhook_deliveries (
	id           INTEGER PRIMARY KEY,
	event_id     TEXT NOT NULL UNIQUE,
	webhook_id   INTEGER NOT NULL REFERENCES webhooks(id),
	event_type   TEXT NOT NULL,
	payload      TEXT NOT NULL,
	status       TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
	attempts     INTEGER NOT NULL DEFAULT 0,
	next_try_at  TEXT NOT NULL,
	last_status  INTEGER,
	last_error   TEXT,
	delivered_at TEXT,
	created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_try_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, id);

-- Who changed what and when.
CREATE TABLE audit_log (
	id         INTEGER PRIMARY KEY,
	at         TEXT NOT NULL,
	actor      TEXT NOT NULL,
	unit_id    INTEGER REFERENCES units(id),
	route      TEXT NOT NULL,
	record     TEXT,
	status     INTEGER NOT NULL
) STRICT;
CREATE INDEX audit_log_at ON audit_log(at);

-- A bank account's statement lines as its OFX files gave them, each once
-- by its FITID: matched to the charge or entry they settle, or open for a
-- person to pair or dismiss.
CREATE TABLE statement_lines (
	id              INTEGER PRIMARY KEY,
	token           TEXT NOT NULL UNIQUE,
	unit_id         INTEGER NOT NULL REFERENCES units(id),
	bank_account_id INTEGER NOT NULL REFERENCES bank_accounts(id),
	fitid           TEXT NOT NULL,
	posted          TEXT NOT NULL,
	amount          TEXT NOT NULL,
	amount_cents    INTEGER NOT NULL,
	memo            TEXT,
	status          TEXT NOT NULL CHECK (status IN ('open', 'matched', 'dismissed')),
	matched_by      TEXT CHECK (matched_by IN ('exact', 'window', 'person')),
	entry_id        INTEGER REFERENCES entries(id),
	charge_id       INTEGER REFERENCES charges(id),
	created_at      TEXT NOT NULL,
	updated_at      TEXT NOT NULL,
	-- What reconciling did to the entry, for an undo: paid it, only
	-- reconciled it (already paid), or booked it (the line became it).
	entry_effect    TEXT CHECK (entry_effect IN ('paid', 'reconciled', 'booked')),
	-- A line that paid part of an entry: the entry kept the line's amount
	-- and this one, open, the rest; an undo joins them again.
	rest_entry_id   INTEGER REFERENCES entries(id),
	-- A line paired with an entry of another amount: the entry booked
	-- with it for the difference (interest, a fine, a discount, a fee).
	diff_entry_id   INTEGER REFERENCES entries(id),
	UNIQUE (bank_account_id, fitid)
) STRICT;
CREATE INDEX statement_lines_unit ON statement_lines(unit_id, status, posted);

-- Each Pix the PSP confirmed for a charge, by its end-to-end id: applied
-- to it, or, of another amount than the charge asked (asked) that day,
-- held until a person decides (decided_at): accepted as its payment, kept
-- towards it (the charge open for the rest) or refunded.
CREATE TABLE psp_payments (
	end_to_end_id TEXT PRIMARY KEY,
	charge_id     INTEGER NOT NULL REFERENCES charges(id),
	amount        TEXT NOT NULL,
	paid_at       TEXT NOT NULL,
	created_at    TEXT NOT NULL,
	status        TEXT NOT NULL DEFAULT 'applied'
		CHECK (status IN ('applied', 'held', 'accepted', 'kept', 'refunded')),
	asked         TEXT,
	decided_at    TEXT
) STRICT;

-- Refunds of Pix received at a unit's PSP, followed until settled or
-- refused; a settled one books its expense once.
CREATE TABLE psp_refunds (
	id            TEXT PRIMARY KEY,
	end_to_end_id TEXT NOT NULL REFERENCES psp_payments(end_to_end_id),
	charge_id     INTEGER NOT NULL REFERENCES charges(id),
	amount        TEXT NOT NULL,
	reason        TEXT,
	-- REQUESTED until the PSP acknowledged it, then the PSP's state.
	status        TEXT NOT NULL,
	detail        TEXT,
	entry_id      INTEGER REFERENCES entries(id),
	requested_at  TEXT NOT NULL,
	settled_at    TEXT,
	updated_at    TEXT NOT NULL
) STRICT;
CREATE INDEX psp_refunds_open ON psp_refunds(status) WHERE status IN ('REQUESTED', 'EM_PROCESSAMENTO');

-- Pix Automático: each recurrence a unit's PSP created for a contract
-- (its idRec, named by the PSP), in the state the PSP last answered, the
-- location of the QR Code the payer approves it by, and the id of the
-- request sent to the payer's PSP, if any.
CREATE TABLE pix_recurrences (
	id_rec      TEXT PRIMARY KEY,
	contract_id INTEGER NOT NULL REFERENCES contracts(id),
	status      TEXT NOT NULL,
	location    TEXT NOT NULL,
	request_id  TEXT,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
) STRICT;
CREATE INDEX pix_recurrences_contract ON pix_recurrences(contract_id, status);

-- Documents of the national environment's distribution a unit's inbox
-- did not take (a note whose signer is not trusted, a document of no kind
-- fincom reads), by NSU, with why: the position moves on, the operator
-- sees them and fetches them again by NSU once the cause is mended.
CREATE TABLE inbox_refused (
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	nsu        INTEGER NOT NULL,
	schema     TEXT NOT NULL,
	reason     TEXT NOT NULL,
	refused_at TEXT NOT NULL,
	PRIMARY KEY (unit_id, nsu)
) STRICT;

-- A count of the changes to what Authenticate reads (tokens, users, their
-- roles, units), kept by triggers: the server's writer reads it with each
-- commit, and a change drops the access it keeps in memory (auth_cache.go).
CREATE TABLE auth_changes (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
) STRICT;
INSERT INTO auth_changes (id, n) VALUES (1, 0);
CREATE TRIGGER access_tokens_changed_i AFTER INSERT ON access_tokens BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER access_tokens_changed_u AFTER UPDATE ON access_tokens BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER access_tokens_changed_d AFTER DELETE ON access_tokens BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER users_changed_i AFTER INSERT ON users BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER users_changed_u AFTER UPDATE ON users BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER users_changed_d AFTER DELETE ON users BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER user_roles_changed_i AFTER INSERT ON user_roles BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER user_roles_changed_u AFTER UPDATE ON user_roles BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER user_roles_changed_d AFTER DELETE ON user_roles BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER units_changed_i AFTER INSERT ON units BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER units_changed_u AFTER UPDATE ON units BEGIN UPDATE auth_changes SET n = n + 1; END;
CREATE TRIGGER units_changed_d AFTER DELETE ON units BEGIN UPDATE auth_changes SET n = n + 1; END;

-- The one-time keys of the portal's forms that make a record: a form sent
-- again (a reload, a double click, back and resend) finds the record its
-- key made and makes nothing twice.
CREATE TABLE form_keys (
	key        TEXT PRIMARY KEY,
	unit_id    INTEGER NOT NULL REFERENCES units(id),
	record     TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;

-- Parts of a charge that statement lines paid: the charge stays open for
-- the rest (the parts count as received towards it), each part booked as
-- an income of its own; undone with its line.
CREATE TABLE charge_parts (
	id         INTEGER PRIMARY KEY,
	charge_id  INTEGER NOT NULL REFERENCES charges(id),
	line_id    INTEGER NOT NULL UNIQUE REFERENCES statement_lines(id),
	amount     TEXT NOT NULL,
	entry_id   INTEGER REFERENCES entries(id),
	created_at TEXT NOT NULL
) STRICT;
CREATE INDEX charge_parts_charge ON charge_parts(charge_id);

-- What one statement line paid at once when it paid several entries or
-- charges (the line's entry_id and charge_id name the first), each with
-- what reconciling did to its entry (statement_lines.entry_effect).
CREATE TABLE statement_line_items (
	id        INTEGER PRIMARY KEY,
	line_id   INTEGER NOT NULL REFERENCES statement_lines(id),
	entry_id  INTEGER REFERENCES entries(id),
	charge_id INTEGER REFERENCES charges(id),
	effect    TEXT
) STRICT;
CREATE INDEX statement_line_items_line ON statement_line_items(line_id);

-- Each reminder sent of a charge, by the schedule or by a person: its
-- step (days from the due date it had then, negative before it; NULL a
-- person's resend), the day, what the charge asked that day, and the
-- channel.
CREATE TABLE charge_reminders (
	id         INTEGER PRIMARY KEY,
	charge_id  INTEGER NOT NULL REFERENCES charges(id),
	due_date   TEXT NOT NULL,
	step       INTEGER,
	day        TEXT NOT NULL,
	amount_due TEXT NOT NULL,
	channel    TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX charge_reminders_step ON charge_reminders(charge_id, due_date, step) WHERE step IS NOT NULL;
CREATE INDEX charge_reminders_day ON charge_reminders(charge_id, day);
-- A PIX with due date past its validity is issued anew at the PSP for
-- what the charge asks that day: its fine and interest then (late) are
-- frozen in the new one, which the charge's reference now names.
CREATE TABLE charge_reissues (
	id         INTEGER PRIMARY KEY,
	charge_id  INTEGER NOT NULL REFERENCES charges(id),
	day        TEXT NOT NULL,
	late       TEXT NOT NULL,
	txid       TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;
CREATE INDEX charge_reissues_charge ON charge_reissues(charge_id);

package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
	"unicode/utf8"
)

// ContactFields are a contact's writable fields, already validated and
// normalized by the caller. Empty strings are stored as NULL.
type ContactFields struct {
	Type         string
	Register     string
	FullName     string
	SocialReason string
	FantasyName  string
	BirthDate    string // YYYY-MM-DD
	Phone        string
	Email        string
	Address      string
	Number       string
	Complement   string
	Neighborhood string
	City         string
	State        string
	ZipCode      string
	Observation  string
	DataBank     string
	CityIBGE     string // 7-digit IBGE code of City/State
	// StateRegistration is the inscrição estadual (digits, or
	// brdoc.Exempt), checked by the state's rule.
	StateRegistration string
	// ICMSContributor is the NF-e's indIEDest: 1 contributor of ICMS, 2
	// contributor exempt from registration, 9 not a contributor; empty
	// is derived from StateRegistration.
	ICMSContributor string
	// Kind is whom the firm deals with: customer, supplier, or "" both.
	Kind string
}

// DisplayName is the contact's `contact_name`: the person's name, else the
// trade name, else the company name.
func (f ContactFields) DisplayName() string {
	for _, s := range []string{f.FullName, f.FantasyName, f.SocialReason} {
		if s != "" {
			return s
		}
	}
	return ""
}

// Contact is a contact as /get_contacts returns it.
type Contact struct {
	Token       string `json:"token" format:"uuid" doc:"The contact's token."`
	Type        string `json:"type" enum:"natural_person,legal" doc:"legal for a firm (CNPJ), natural_person for a person (CPF)."`
	Register    string `json:"register" pattern:"^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$" doc:"The CPF or CNPJ, bare (digits; an alphanumeric CNPJ's letters upper case)."`
	ContactName Text   `json:"contact_name" doc:"The name to show: the person's full name, else the trade name, else the legal name."`
	CompanyName Text   `json:"company_name" doc:"A firm's legal name (razão social); null for a person."`
	Phone       Text   `json:"phone" doc:"The phone number, as digits; null when none."`
	Email       Text   `json:"email" format:"email" doc:"The e-mail address; null when none."`
	Observation Text   `json:"observation" doc:"Free notes; null when none."`
	Kind        string `json:"kind" enum:"customer,supplier,both" doc:"fincom: whom the firm deals with: customer, supplier or both."`
}

// ContactFilter narrows /get_contacts.
type ContactFilter struct {
	Search   string // any of the names
	Register string // exact, normalized
	// Kind keeps the customers (customer) or the suppliers (supplier),
	// each with those who are both.
	Kind string
}

const contactColumns = `type, register, full_name, social_reason, fantasy_name, birth_date, phone, email,
	address, number, complement, neighborhood, city, state, zip_code, observation, data_bank, city_ibge, state_registration, icms_contributor, kind`

const sqlInsertContact = `INSERT INTO contacts (token, unit_id, display_name, ` + contactColumns + `, created_at, updated_at, sort_key)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const contactSets = `type = ?, register = ?, full_name = ?, social_reason = ?, fantasy_name = ?, birth_date = ?,
	phone = ?, email = ?, address = ?, number = ?, complement = ?, neighborhood = ?, city = ?, state = ?, zip_code = ?,
	observation = ?, data_bank = ?, city_ibge = ?, state_registration = ?, icms_contributor = ?, kind = ?`

func (f *ContactFields) pointers() []*string {
	return []*string{&f.Type, &f.Register, &f.FullName, &f.SocialReason, &f.FantasyName, &f.BirthDate, &f.Phone, &f.Email,
		&f.Address, &f.Number, &f.Complement, &f.Neighborhood, &f.City, &f.State, &f.ZipCode, &f.Observation, &f.DataBank, &f.CityIBGE,
		&f.StateRegistration, &f.ICMSContributor, &f.Kind}
}

func (f ContactFields) values() []any {
	out := []any{f.Type, f.Register}
	for _, s := range []string{f.FullName, f.SocialReason, f.FantasyName, f.BirthDate, f.Phone, f.Email,
		f.Address, f.Number, f.Complement, f.Neighborhood, f.City, f.State, f.ZipCode, f.Observation, f.DataBank, f.CityIBGE,
		f.StateRegistration, f.ICMSContributor, f.Kind} {
		out = append(out, nullString(s))
	}
	return out
}

// InsertContact creates an active contact and returns its token. A register
// already used in the unit (inactive contacts included) is ErrDuplicate.
func (db *DB) InsertContact(ctx context.Context, unitID int64, f ContactFields) (string, error) {
	token, _, err := db.InsertContactOnce(ctx, unitID, "", f)
	return token, err
}

// insertContact inserts the contact of token.
func (db *DB) insertContact(ctx context.Context, tx *sql.Tx, unitID int64, token string, f ContactFields, now time.Time) error {
	name := f.DisplayName()
	args := append([]any{token, unitID, name}, f.values()...)
	args = append(args, timestamp(now), timestamp(now), sortKey(name))
	_, err := db.exec(ctx, tx, sqlInsertContact, args...)
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// UpdateContact reads the unit's contact, lets apply change and validate its
// fields, and writes the result, all in one transaction.
func (db *DB) UpdateContact(ctx context.Context, unitID int64, token string, apply func(*ContactFields) error) error {
	return wrap("update contact", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		f, err := scanContactFields(tx.QueryRowContext(ctx, `SELECT `+contactColumns+` FROM contacts WHERE unit_id = ? AND token = ?`, unitID, token))
		if err != nil {
			return notFound(err)
		}
		if err := apply(&f); err != nil {
			return err
		}
		name := f.DisplayName()
		args := append(f.values(), name, sortKey(name), timestamp(now), unitID, token)
		_, err = tx.ExecContext(ctx, `UPDATE contacts SET `+contactSets+`, display_name = ?, sort_key = ?, updated_at = ?
			WHERE unit_id = ? AND token = ?`, args...)
		if isUnique(err) {
			return ErrDuplicate
		}
		return err
	}))
}

// SetContactActive enables or disables a contact of the unit.
func (db *DB) SetContactActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "contacts", unitID, token, active)
}

// Contacts lists the unit's active contacts by name.
func (db *DB) Contacts(ctx context.Context, unitID int64, f ContactFilter) ([]Contact, error) {
	from, where, args := "contacts", []string{"unit_id = ?", "active = 1"}, []any{unitID}
	if f.Search != "" {
		search := fold(f.Search)
		if trigrams(search) {
			// The trigram index narrows 10,000 contacts to the few that
			// may match; the test below decides (see 0010_search.sql).
			// CROSS JOIN keeps the index the outer loop, which the planner
			// would otherwise trade for the unit's name order.
			from = `contacts_fts CROSS JOIN contacts ON contacts.id = contacts_fts.rowid`
			where = append(where, `contacts_fts MATCH ?`)
			args = append(args, coveringTrigrams(search))
		}
		// The names folded as the index holds them, in one call a row;
		// a text with a line break would match across two names, and
		// no name holds one (or any control character).
		if strings.ContainsRune(search, '\n') {
			search = "\x00" // matches nothing: no name holds a NUL either
		}
		names := `coalesce(full_name, '') || char(10) || coalesce(social_reason, '') || char(10) || coalesce(fantasy_name, '')`
		if isASCII(search) {
			// An ASCII text found in the names with their ASCII case
			// folded (lower, in C) is found in the folded names too:
			// the Go fold is called only for the rows lower() misses
			// (BenchmarkGetContacts; TestSearchFoldsCaseAndAccents).
			where = append(where, `(instr(lower(`+names+`), ?) > 0 OR instr(fincom_fold(`+names+`), ?) > 0)`)
			args = append(args, search, search)
		} else {
			where = append(where, `instr(fincom_fold(`+names+`), ?) > 0`)
			args = append(args, search)
		}
	}
	if f.Register != "" {
		where = append(where, "register = ?")
		args = append(args, f.Register)
	}
	if f.Kind != "" {
		where = append(where, "(kind IS NULL OR kind = ?)")
		args = append(args, f.Kind)
	}
	query := db.cachedQuery
	if from != "contacts" { // the trigram index's: see searchQuery
		query = func(ctx context.Context, _ *sql.Tx, q string, args ...any) (*sql.Rows, error) {
			return db.searchQuery(ctx, q, args...)
		}
	}
	rows, err := query(ctx, nil, `
		SELECT token, type, register, display_name, social_reason, phone, email, observation, coalesce(kind, 'both')
		FROM `+from+` WHERE `+strings.Join(where, " AND ")+` ORDER BY sort_key, id`, args...)
	if err != nil {
		return nil, wrap("contacts", err)
	}
	defer rows.Close()
	out := []Contact{}
	for rows.Next() {
		var c Contact
		if err := rows.Scan(&c.Token, &c.Type, &c.Register, &c.ContactName, &c.CompanyName, &c.Phone, &c.Email, &c.Observation, &c.Kind); err != nil {
			return nil, wrap("contacts", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ContactAddress is where a contact is, as an accountant's export lists
// it: its address, CEP, city and UF, and its state registration (IE).
type ContactAddress struct {
	Street, Number, Complement, District, ZipCode, City, State, StateRegistration string
}

// ContactAddresses answers the unit's active contacts' addresses, by
// token (the contacts' list leaves them out: it is read at every key
// typed in a search).
func (db *DB) ContactAddresses(ctx context.Context, unitID int64) (map[string]ContactAddress, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, coalesce(address, ''), coalesce(number, ''), coalesce(complement, ''),
		coalesce(neighborhood, ''), coalesce(zip_code, ''), coalesce(city, ''), coalesce(state, ''), coalesce(state_registration, '')
		FROM contacts WHERE unit_id = ? AND active = 1`, unitID)
	if err != nil {
		return nil, wrap("contact addresses", err)
	}
	defer rows.Close()
	out := map[string]ContactAddress{}
	for rows.Next() {
		var token string
		var a ContactAddress
		if err := rows.Scan(&token, &a.Street, &a.Number, &a.Complement, &a.District, &a.ZipCode, &a.City, &a.State, &a.StateRegistration); err != nil {
			return nil, wrap("contact addresses", err)
		}
		out[token] = a
	}
	return out, wrap("contact addresses", rows.Err())
}

// CompactSearch merges the contact search index into one segment. Each
// insert adds a small segment that every search then visits; over 10,000
// contacts a compacted index answers a search in a third of the time. The
// daily jobs call it for every domain (and for every missed day at start):
// when no contact changed since the last compaction it only reads, so
// idle domains cost no write and no fsync.
func (db *DB) CompactSearch(ctx context.Context) error {
	var changed, compacted string
	if err := db.r.QueryRowContext(ctx, `SELECT coalesce((SELECT max(updated_at) FROM contacts), ''),
		coalesce((SELECT value FROM meta WHERE key = 'search_compacted'), '')`).Scan(&changed, &compacted); err != nil {
		return wrap("compact search", err)
	}
	if changed == compacted {
		return nil
	}
	return db.write(ctx, func(ctx context.Context, tx *sql.Tx, _ time.Time) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO contacts_fts (contacts_fts) VALUES ('optimize')`); err != nil {
			return err
		}
		// The newest change the compaction saw, read in its transaction
		// (WHERE true: SQLite's parser needs it before an upsert's ON).
		_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) SELECT 'search_compacted', coalesce(max(updated_at), '') FROM contacts WHERE true
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`)
		return err
	})
}

// trigrams reports whether the trigram index can serve a search for s: it
// needs three characters, and no NUL (which the FTS5 query parser ends a
// string at).
func trigrams(s string) bool {
	return utf8.RuneCountInString(s) >= 3 && !strings.ContainsRune(s, 0)
}

// coveringTrigrams is an FTS5 query for the rows holding every trigram of
// a set that covers s: its trigrams at 0, 3, 6, ... and its last. A row
// holding s holds them all; the few that hold them apart are left to the
// exact test. Each term costs a lookup in every segment of the index, so
// "grupo alfa" asks for 4 terms, not the 8 of its phrase
// (BenchmarkSearchAsItGrows).
func coveringTrigrams(s string) string {
	r := []rune(s)
	var b strings.Builder
	seen := map[string]bool{}
	for i := 0; i+3 <= len(r); i += 3 {
		addTrigram(&b, seen, string(r[i:i+3]))
	}
	addTrigram(&b, seen, string(r[len(r)-3:]))
	return b.String()
}

func addTrigram(b *strings.Builder, seen map[string]bool, t string) {
	if seen[t] {
		return
	}
	seen[t] = true
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
}

// ContactByToken returns the fields of a contact of the unit (active or
// not).
func (db *DB) ContactByToken(ctx context.Context, unitID int64, token string) (ContactFields, error) {
	f, err := scanContactFields(db.r.QueryRowContext(ctx, `SELECT `+contactColumns+` FROM contacts WHERE unit_id = ? AND token = ?`, unitID, token))
	return f, wrap("contact by token", notFound(err))
}

// scanContactFields reads a row of contactColumns.
func scanContactFields(s scanner) (ContactFields, error) {
	var f ContactFields
	ptrs := f.pointers()
	cols := make([]sql.NullString, len(ptrs))
	scan := make([]any, len(cols))
	for i := range cols {
		scan[i] = &cols[i]
	}
	if err := s.Scan(scan...); err != nil {
		return ContactFields{}, err
	}
	for i, p := range ptrs {
		*p = cols[i].String
	}
	return f, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// EveryUnit is the unit of a listing that spans the domain: the
// operator's, never a user's. A unit id of 0 (no unit) lists nothing, so
// that a request resolved to no unit never reads the whole domain.
const EveryUnit int64 = -1

// Unit is an organizational unit of a domain. Every record belongs to one.
type Unit struct {
	ID        int64  `json:"-"`
	Token     string `json:"unit_token"`
	Name      string `json:"name"`
	CNPJ      string `json:"cnpj,omitempty"`
	CityIBGE  string `json:"city_ibge,omitempty"`
	IM        string `json:"im,omitempty"`
	CreatedAt Stamp  `json:"created_at"`
}

// UnitInput is what creating a unit takes; validation is the caller's.
type UnitInput struct {
	Name, CNPJ, CityIBGE, IM string
	Profile                  UnitProfile
}

// UnitProfile is a unit's fiscal profile: what its invoices carry.
// Validation is the caller's.
type UnitProfile struct {
	Street     string `json:"street,omitempty"`
	Number     string `json:"number,omitempty"`
	Complement string `json:"complement,omitempty"`
	District   string `json:"district,omitempty"`
	Zip        string `json:"zip,omitempty"`
	Phone      string `json:"phone,omitempty"`
	IE         string `json:"ie,omitempty"`
	CRT        int    `json:"crt,omitempty"`
	CNAE       string `json:"cnae,omitempty"`
	ICMSRate   string `json:"icms_rate,omitempty"`
	PISRate    string `json:"pis_rate,omitempty"`
	COFINSRate string `json:"cofins_rate,omitempty"`
	CSCID      string `json:"csc_id,omitempty"`
	// CSCSealed is the NFC-e's CSC, sealed with the operator's secrets key.
	CSCSealed []byte `json:"-"`
	// PixKey is the unit's PIX key, normalized: the key of the PIX codes
	// of its orders that give none.
	PixKey string `json:"pix_key,omitempty"`
	// FiscalEnvironment is where the unit's invoices go: homologacao
	// (tests, no legal value; the default) or producao.
	FiscalEnvironment string `json:"fiscal_environment,omitempty"`
	// NFSeIssuer is where the unit's service invoices are issued: national
	// (the national NFS-e system; the default) or municipal (the city's
	// own system).
	NFSeIssuer string `json:"nfse_issuer,omitempty"`
	// FiscalContingency is off, svc (the unit's NF-e go to its state's
	// contingency authorizer) or epec (they are issued at once, their EPEC
	// registered at the national environment, and sent to the state's
	// authorizer later), since FiscalContingencySince (RFC 3339).
	FiscalContingency      string `json:"fiscal_contingency,omitempty"`
	FiscalContingencySince string `json:"fiscal_contingency_since,omitempty"`
	// AccountantEmail receives the accountant's package of each month,
	// when set.
	AccountantEmail string `json:"accountant_email,omitempty"`
}

// Where a unit's service invoices are issued (UnitProfile.NFSeIssuer).
const (
	NFSeNational  = "national"
	NFSeMunicipal = "municipal"
)

// The fiscal environments (UnitProfile.FiscalEnvironment).
const (
	Homologacao = "homologacao"
	Producao    = "producao"
)

const profileColumns = `street, number, complement, district, zip, phone, ie, crt, cnae, icms_rate, pis_rate, cofins_rate, csc_id, csc_sealed, pix_key, fiscal_environment, nfse_issuer, fiscal_contingency, fiscal_contingency_since, accountant_email`

func (p *UnitProfile) args() []any {
	environment := p.FiscalEnvironment
	if environment == "" {
		environment = Homologacao
	}
	issuer := p.NFSeIssuer
	if issuer == "" {
		issuer = NFSeNational
	}
	contingency := p.FiscalContingency
	if contingency == "" {
		contingency = "off"
	}
	var crt any
	if p.CRT != 0 {
		crt = p.CRT
	}
	var csc any
	if len(p.CSCSealed) > 0 {
		csc = p.CSCSealed
	}
	return []any{nullString(p.Street), nullString(p.Number), nullString(p.Complement), nullString(p.District), nullString(p.Zip),
		nullString(p.Phone), nullString(p.IE), crt, nullString(p.CNAE), nullString(p.ICMSRate), nullString(p.PISRate),
		nullString(p.COFINSRate), nullString(p.CSCID), csc, nullString(p.PixKey), environment, issuer, contingency, nullString(p.FiscalContingencySince),
		nullString(p.AccountantEmail)}
}

func scanProfile(s scanner, p *UnitProfile) error {
	var v [19]sql.NullString
	var crt sql.NullInt64
	err := s.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &crt, &v[8], &v[9], &v[10], &v[11], &v[12], &p.CSCSealed, &v[13], &v[14], &v[15], &v[16], &v[17],
		&v[18])
	p.AccountantEmail = v[18].String
	p.PixKey, p.FiscalEnvironment, p.NFSeIssuer = v[13].String, v[14].String, v[15].String
	p.FiscalContingency, p.FiscalContingencySince = v[16].String, v[17].String
	p.Street, p.Number, p.Complement, p.District, p.Zip, p.Phone, p.IE = v[0].String, v[1].String, v[2].String, v[3].String, v[4].String, v[5].String, v[6].String
	p.CRT, p.CNAE, p.ICMSRate, p.PISRate, p.COFINSRate, p.CSCID = int(crt.Int64), v[8].String, v[9].String, v[10].String, v[11].String, v[12].String
	return err
}

// UnitProfile reads a unit's fiscal profile.
func (db *DB) UnitProfile(ctx context.Context, unitID int64) (UnitProfile, error) {
	var p UnitProfile
	err := scanProfile(db.r.QueryRowContext(ctx, `SELECT `+profileColumns+` FROM units WHERE id = ?`, unitID), &p)
	return p, wrap("unit profile", notFound(err))
}

// SetUnitProfile changes a unit's fiscal profile in one transaction:
// change gets the stored profile and alters what it sets.
func (db *DB) SetUnitProfile(ctx context.Context, unitToken string, change func(p *UnitProfile) error) (UnitProfile, error) {
	_, p, err := db.SetUnitSettings(ctx, unitToken, func(_ *Unit, p *UnitProfile) error { return change(p) })
	return p, err
}

// SetUnitSettings changes a unit's CNPJ, municipality and municipal
// registration and its fiscal profile in one transaction: change gets
// the stored unit and profile and alters what it sets (the unit's token
// and name stay).
func (db *DB) SetUnitSettings(ctx context.Context, unitToken string, change func(u *Unit, p *UnitProfile) error) (Unit, UnitProfile, error) {
	var u Unit
	var p UnitProfile
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var err error
		if u, err = unitByToken(ctx, tx, unitToken); errors.Is(err, ErrUnitNotFound) {
			return ErrNotFound
		} else if err != nil {
			return err
		}
		if err := scanProfile(tx.QueryRowContext(ctx, `SELECT `+profileColumns+` FROM units WHERE id = ?`, u.ID), &p); err != nil {
			return notFound(err)
		}
		if err := change(&u, &p); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE units SET (cnpj, city_ibge, im, `+profileColumns+`) = (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			WHERE id = ?`, append(append([]any{nullString(u.CNPJ), nullString(u.CityIBGE), nullString(u.IM)}, p.args()...), u.ID)...)
		return err
	})
	return u, p, wrap("set unit settings", err)
}

// UnitCertificate is a unit's digital certificate: the certificate, its
// private key sealed with the operator's secrets key, and what fincom
// shows of it.
type UnitCertificate struct {
	Cert []byte `json:"-"`
	// Chain are the intermediates that came with it, DER one after
	// another (x509.ParseCertificates reads them).
	Chain     []byte    `json:"-"`
	SealedKey []byte    `json:"-"`
	CNPJ      string    `json:"cnpj"`
	Subject   string    `json:"subject"`
	NotBefore time.Time `json:"not_before"`
	NotAfter  time.Time `json:"not_after"`
	Test      bool      `json:"test"`
}

// SetUnitCertificate installs (or replaces) a unit's certificate.
func (db *DB) SetUnitCertificate(ctx context.Context, unitID int64, c UnitCertificate) error {
	return wrap("set unit certificate", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO unit_certificates (unit_id, cert, sealed_key, cnpj, subject, not_before, not_after, test, installed_at, chain)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (unit_id) DO UPDATE SET cert = excluded.cert, sealed_key = excluded.sealed_key, cnpj = excluded.cnpj,
				subject = excluded.subject, not_before = excluded.not_before, not_after = excluded.not_after, test = excluded.test,
				installed_at = excluded.installed_at, chain = excluded.chain`,
			unitID, c.Cert, c.SealedKey, c.CNPJ, c.Subject, timestamp(c.NotBefore), timestamp(c.NotAfter), boolInt(c.Test), timestamp(now), c.Chain)
		return err
	}))
}

// Certificate reads a unit's certificate; ErrNotFound when it has none.
func (db *DB) Certificate(ctx context.Context, unitID int64) (UnitCertificate, error) {
	var c UnitCertificate
	var nb, na string
	err := db.r.QueryRowContext(ctx, `SELECT cert, sealed_key, cnpj, subject, not_before, not_after, test, chain FROM unit_certificates WHERE unit_id = ?`,
		unitID).Scan(&c.Cert, &c.SealedKey, &c.CNPJ, &c.Subject, &nb, &na, &c.Test, &c.Chain)
	if err != nil {
		return c, wrap("certificate", notFound(err))
	}
	c.NotBefore, _ = time.Parse(time.RFC3339, nb)
	c.NotAfter, _ = time.Parse(time.RFC3339, na)
	return c, nil
}

// OwnCertificates answers the certificates (DER) the domain holds for
// its units, by the unit's CNPJ as digits; test certificates are left
// out. The inbox takes a note its own unit signed with one of them.
func (db *DB) OwnCertificates(ctx context.Context) (map[string][][]byte, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT u.cnpj, c.cert FROM unit_certificates c JOIN units u ON u.id = c.unit_id WHERE c.test = 0 AND u.cnpj IS NOT NULL`)
	if err != nil {
		return nil, wrap("own certificates", err)
	}
	defer rows.Close()
	out := map[string][][]byte{}
	for rows.Next() {
		var cnpj string
		var cert []byte
		if err := rows.Scan(&cnpj, &cert); err != nil {
			return nil, wrap("own certificates", err)
		}
		d := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, cnpj)
		out[d] = append(out[d], cert)
	}
	return out, wrap("own certificates", rows.Err())
}

// CreateUnit creates a unit with its unit token and default categories.
func (db *DB) CreateUnit(ctx context.Context, in UnitInput) (Unit, error) {
	u := Unit{Token: unitPrefix + db.Name + "_" + db.secret(16), Name: in.Name, CNPJ: in.CNPJ, CityIBGE: in.CityIBGE, IM: in.IM}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		u.CreatedAt = stampOf(now)
		res, err := tx.ExecContext(ctx, `
			INSERT INTO units (token, name, cnpj, city_ibge, im, created_at, `+profileColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			append([]any{u.Token, u.Name, nullString(u.CNPJ), nullString(u.CityIBGE), nullString(u.IM), timestamp(now)}, in.Profile.args()...)...)
		if err != nil {
			return err
		}
		if u.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		return seedUnitCategories(ctx, tx, u.ID, now, db.id)
	})
	if err != nil {
		return Unit{}, fmt.Errorf("create unit: %w", err)
	}
	return u, nil
}

// Units lists the domain's units.
func (db *DB) Units(ctx context.Context) ([]Unit, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, token, name, cnpj, city_ibge, im, created_at FROM units ORDER BY id`)
	if err != nil {
		return nil, wrap("units", err)
	}
	defer rows.Close()
	var out []Unit
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, wrap("units", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func unitByToken(ctx context.Context, tx *sql.Tx, token string) (Unit, error) {
	u, err := scanUnit(tx.QueryRowContext(ctx, `SELECT id, token, name, cnpj, city_ibge, im, created_at FROM units WHERE token = ?`, token))
	if errors.Is(err, sql.ErrNoRows) {
		return Unit{}, ErrUnitNotFound
	}
	return u, err
}

// UnitByID answers the unit of id; ErrUnitNotFound when there is none.
func (db *DB) UnitByID(ctx context.Context, id int64) (Unit, error) {
	u, err := scanUnit(db.r.QueryRowContext(ctx, `SELECT id, token, name, cnpj, city_ibge, im, created_at FROM units WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Unit{}, ErrUnitNotFound
	}
	return u, wrap("unit by id", err)
}

type scanner interface{ Scan(...any) error }

func scanUnit(s scanner) (Unit, error) {
	var u Unit
	var cnpj, ibge, im sql.NullString
	err := s.Scan(&u.ID, &u.Token, &u.Name, &cnpj, &ibge, &im, &u.CreatedAt)
	u.CNPJ, u.CityIBGE, u.IM = cnpj.String, ibge.String, im.String
	return u, err
}

// CertificateWarning is how long before its end a unit's A1 certificate is
// reported: a firm needs the days to buy and install the next one, or its
// invoices stop.
const CertificateWarning = 30 * 24 * time.Hour

// expiringCertificates says which units' installed certificates (test
// ones aside) end within CertificateWarning of now, or have ended
// (TestDoctorWarnsOfCertificates).
func expiringCertificates(ctx context.Context, conn *sql.DB, now time.Time) []string {
	rows, err := conn.QueryContext(ctx, `SELECT u.name, c.not_after FROM unit_certificates c JOIN units u ON u.id = c.unit_id
		WHERE c.test = 0 ORDER BY u.id`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, end string
		if rows.Scan(&name, &end) != nil {
			continue
		}
		t, err := time.Parse(time.RFC3339, end)
		switch {
		case err != nil:
		case !t.After(now):
			out = append(out, fmt.Sprintf("unit %s's A1 certificate ended on %s: its invoices are refused until fincom unit cert installs the next", name, t.Format(time.DateOnly)))
		case t.Sub(now) <= CertificateWarning:
			out = append(out, fmt.Sprintf("unit %s's A1 certificate ends on %s (in %d days): install the next with fincom unit cert", name,
				t.Format(time.DateOnly), int(t.Sub(now).Hours()/24)))
		}
	}
	return out
}

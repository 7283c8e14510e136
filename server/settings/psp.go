package settings

import (
	"context"
	"crypto/x509"
	"errors"
	"net/url"
	"strings"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/server/psp"
	"fincom/store"
)

// The refusals of a PSP connection, beside their fields; the PSP's own
// answer goes in the details.
var (
	ErrPSPURL      = problem.New(problem.Unprocessable, "use the PSP's https address")
	ErrRequired    = problem.New(problem.Unprocessable, "required")
	ErrPSPRefused  = problem.New(problem.Unprocessable, "the PSP did not accept the connection (its answer in details)")
	ErrPSPWebhook  = problem.New(problem.Unprocessable, "connected, but the PSP refused the unit's webhook (its answer in details)")
	ErrNoPSPToDrop = problem.New(problem.Unprocessable, "the unit has no PSP connection")
)

// PSPConnection is what connecting a unit to its PSP takes: its API Pix
// and token addresses, the OAuth client and its secret, the certificate
// the PSP issued (a .pfx with its password) and the unit's key there. A
// blank secret, or no certificate, keeps the connection's own.
type PSPConnection struct {
	BaseURL, TokenURL, ClientID, Secret, PixKey string
	PFX                                         []byte
	Password                                    string
	// PublicURL is where the PSP reaches fincom (serve's --public-url):
	// the unit's webhook is registered under it at once; "" registers
	// none.
	PublicURL string
}

// PSPConnected is how the PSP answered the connection: the certificate's
// holder, the unit's key, and the key's webhook ("" when none yet).
type PSPConnected struct{ Certificate, PixKey, Webhook string }

// ConnectPSP connects the unit to its PSP, as `fincom unit psp` does:
// the connection is tried at once (a token fetched, the key's webhook
// asked), then kept with its secret and key sealed with keys; outbound
// TLS trusts roots.
func ConnectPSP(ctx context.Context, db *store.DB, unit store.Unit, keys *certs.Keyring, roots *x509.CertPool, in PSPConnection) (PSPConnected, error) {
	for _, f := range []struct{ name, v string }{{"base-url", in.BaseURL}, {"token-url", in.TokenURL}} {
		if u, err := url.Parse(strings.TrimSpace(f.v)); err != nil || u.Scheme != "https" || u.Host == "" {
			return PSPConnected{}, refuse(f.name, ErrPSPURL)
		}
	}
	in.BaseURL, in.TokenURL, in.ClientID = strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.TokenURL), strings.TrimSpace(in.ClientID)
	if in.ClientID == "" {
		return PSPConnected{}, refuse("client-id", ErrRequired)
	}
	key, _, err := brdoc.NormalizePixKey(in.PixKey)
	if err != nil {
		return PSPConnected{}, refuse("psp-pix-key", ErrPixKey)
	}
	if keys == nil {
		return PSPConnected{}, refuse("client-secret", invoicing.ErrNoSecretsKey)
	}
	old, err := db.UnitPSP(ctx, unit.ID)
	connected := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return PSPConnected{}, err
	}
	secret := strings.TrimSpace(in.Secret)
	if secret == "" {
		if !connected {
			return PSPConnected{}, refuse("client-secret", ErrRequired)
		}
		b, err := keys.Open(old.SecretSealed)
		if err != nil {
			return PSPConnected{}, err
		}
		secret = string(b)
	}
	var cert certs.Certificate
	switch {
	case len(in.PFX) > 0:
		if cert, err = certs.ReadPFX(in.PFX, in.Password); errors.Is(err, certs.ErrPassword) {
			return PSPConnected{}, refuse("psp-pfx", ErrCertPassword)
		} else if err != nil {
			return PSPConnected{}, refuse("psp-pfx", ErrCertFile)
		}
	case connected:
		if cert, err = keys.OpenCertificate(old.Cert, nil, old.KeySealed); err != nil {
			return PSPConnected{}, err
		}
	default:
		return PSPConnected{}, refuse("psp-pfx", ErrRequired)
	}
	c := &psp.Client{BaseURL: in.BaseURL, TokenURL: in.TokenURL, ClientID: in.ClientID, Secret: secret, Cert: cert, Roots: roots, Now: db.Now}
	hook, err := c.Webhook(ctx, key)
	if err != nil {
		return PSPConnected{}, refuse("base-url", ErrPSPRefused.With(err.Error()))
	}
	sealedKey, err := keys.SealKey(cert)
	if err != nil {
		return PSPConnected{}, err
	}
	record := "psp: " + in.BaseURL + " · client " + in.ClientID + " · key " + key
	if connected {
		record = "psp: " + old.BaseURL + " · client " + old.ClientID + " · key " + old.PixKey + " → " + strings.TrimPrefix(record, "psp: ")
	}
	if in.Secret != "" {
		record += " · secret changed"
	}
	store.SetAuditRecord(ctx, record)
	if err := db.SetUnitPSP(ctx, unit.ID, store.UnitPSP{BaseURL: in.BaseURL, TokenURL: in.TokenURL, ClientID: in.ClientID,
		SecretSealed: keys.Seal([]byte(secret)), Cert: cert.Cert.Raw, KeySealed: sealedKey, PixKey: key}); err != nil {
		return PSPConnected{}, err
	}
	out := PSPConnected{Certificate: cert.Cert.Subject.CommonName, PixKey: key, Webhook: hook}
	if in.PublicURL != "" {
		// The unit's webhook, registered at once (serve registers it too
		// when the PSP has another or none).
		conn, err := db.UnitPSP(ctx, unit.ID)
		if err != nil {
			return out, err
		}
		out.Webhook = strings.TrimRight(in.PublicURL, "/") + "/api/v1/psp/" + conn.WebhookSecret
		if err := c.PutWebhook(ctx, key, out.Webhook); err != nil {
			return out, refuse("base-url", ErrPSPWebhook.With(err.Error()))
		}
	}
	return out, nil
}

// DisconnectPSP removes the unit's PSP connection (ErrNoPSPToDrop when it
// has none), as `fincom unit psp --remove` does.
func DisconnectPSP(ctx context.Context, db *store.DB, unit store.Unit) error {
	store.SetAuditRecord(ctx, "psp: removed")
	err := db.RemoveUnitPSP(ctx, unit.ID)
	if errors.Is(err, store.ErrNotFound) {
		return refuse("base-url", ErrNoPSPToDrop)
	}
	return err
}

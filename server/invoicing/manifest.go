package invoicing

import (
	"context"
	"errors"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/store"
)

// manifestationEvents are the recipient's events by the names the API
// takes them (/manifest_nfe's event).
var manifestationEvents = map[string]string{"confirmacao": "210200", "ciencia": "210210", "desconhecimento": "210220", "nao_realizada": "210240"}

// SendManifestations sends a domain's recorded manifestations to the
// national environment, each signed with its unit's certificate, and
// records the answer: registered with its protocol, or refused with its
// code and text. A unit without a certificate (or a server without the
// secrets key) keeps its manifestations waiting; an authority that cannot
// be reached leaves them for the next pass. An authority that registers
// no manifestation (test mode's simulation) sends nothing.
func (s *Service) SendManifestations(ctx context.Context, db *store.DB) error {
	m, ok := s.Authority.(fiscal.Manifester)
	if !ok || s.Keyring == nil {
		return nil
	}
	pending, err := db.PendingManifestations(ctx)
	if err != nil {
		return err
	}
	var errs []error
	now := db.Now()
	for _, p := range pending {
		waitKey := db.Name + "/" + p.AccessKey
		if s.waiting(waitKey, now) {
			continue
		}
		cert, production, ok, err := s.unitSigner(ctx, db, p.UnitID)
		if err != nil || !ok {
			errs = append(errs, err)
			continue
		}
		registered, reply, err := m.Manifest(ctx, fiscal.Manifestation{Key: p.AccessKey, CNPJ: p.CNPJ, Event: manifestationEvents[p.Event],
			Reason: p.Justification, At: db.Now(), Production: production, Cert: cert, Domain: db.Name, Book: book{db}})
		if err != nil {
			// Not reached: ask again after a wait that doubles, a minute to
			// an hour (the national environment's 656 punishes insisting).
			b := backoff{wait: time.Minute}
			if v, ok := s.manifestWait.Load(waitKey); ok {
				b.wait = min(2*v.(backoff).wait, time.Hour)
			}
			b.next = now.Add(b.wait)
			s.manifestWait.Store(waitKey, b)
			errs = append(errs, err)
			continue
		}
		s.manifestWait.Delete(waitKey)
		if err := db.ManifestationSent(ctx, p.UnitID, p.AccessKey, p.Event, registered, reply); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// backoff is when a manifestation that could not be sent is tried again.
type backoff struct {
	wait time.Duration
	next time.Time
}

// waiting says whether what key names (a manifestation, a unit's fetch)
// still waits its turn after a failure or an empty answer.
func (s *Service) waiting(key string, now time.Time) bool {
	v, ok := s.manifestWait.Load(key)
	return ok && now.Before(v.(backoff).next)
}

// unitSigner is a unit's certificate, opened with the secrets key, and
// whether the unit issues in production; ok is false for a unit without a
// certificate (it waits until one is installed).
func (s *Service) unitSigner(ctx context.Context, db *store.DB, unitID int64) (cert certs.Certificate, production, ok bool, err error) {
	stored, err := db.Certificate(ctx, unitID)
	if errors.Is(err, store.ErrNotFound) {
		return cert, false, false, nil
	}
	if err != nil {
		return cert, false, false, err
	}
	if cert, err = s.Keyring.OpenCertificate(stored.Cert, stored.Chain, stored.SealedKey); err != nil {
		return cert, false, false, err
	}
	p, err := db.UnitProfile(ctx, unitID)
	if err != nil {
		return cert, false, false, err
	}
	return cert, p.FiscalEnvironment == store.Producao, true, nil
}

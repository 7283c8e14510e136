package invoicing

import (
	"context"

	"fincom/server/fiscal/localauth"
	"fincom/store"
)

// SetAuthorityMode sets what test mode's local authorities do with the
// domain's next notes (localauth.Mode); ErrNoRehearsal outside test mode.
func (s *Service) SetAuthorityMode(ctx context.Context, db *store.DB, m localauth.Mode) error {
	if s.Rehearsal == nil {
		return ErrNoRehearsal
	}
	return s.Rehearsal.Set(ctx, db.Name, m, book{db})
}

// ForgetAuthorities makes test mode's local authorities of a domain start
// again from its file (after a reset or a restored snapshot).
func (s *Service) ForgetAuthorities(domain string) {
	if s.Rehearsal != nil {
		s.Rehearsal.Forget(domain)
	}
}

// AuthorityLog lists the messages test mode's local authorities received
// for the domain, in order; ErrNoRehearsal outside test mode.
func (s *Service) AuthorityLog(db *store.DB) ([]localauth.Message, error) {
	if s.Rehearsal == nil {
		return nil, ErrNoRehearsal
	}
	return s.Rehearsal.Log(db.Name), nil
}

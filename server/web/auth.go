package web

import (
	"encoding/json"
	"errors"

	"fincom/store"
)

// AuthKind is how a route is authenticated.
type AuthKind int

const (
	// AuthUnit: access_token and unit_token in the body (spec,
	// Authentication 1).
	AuthUnit AuthKind = iota
	// AuthTecOrAccess: like authUnit, or token_tec instead of access_token
	// (spec, Authentication 3).
	AuthTecOrAccess
	// AuthUnits: like authUnit, or unit_tokens (an array of units of the
	// access token's domain) instead of unit_token (spec, Authentication 4).
	AuthUnits
	// AuthDomain: access_token alone (test-mode routes act on a domain).
	AuthDomain
	// AuthPublic: no tokens; the order's public token is in the path or
	// body (spec, Authentication 7).
	AuthPublic
)

// authenticate resolves the route's tokens to a domain and unit and keeps
// the domain open until release. Failures carry the route's own texts
// (spec, Authentication 8).
func (s *Mux) authenticate(req *Request) (release func(), err error) {
	rt := req.Route
	if rt.Auth == AuthPublic {
		return func() {}, nil
	}
	// A token sent as a number or an object is a client's bug: the
	// route's format text, not "missing".
	if name := req.Body.nonString("access_token", "unit_token", "token_tec"); name != "" {
		return nil, rt.FormatError(name)
	}
	access := req.Body.str("access_token")
	if rt.Auth == AuthDomain {
		return s.AuthenticateDomain(req, access)
	}
	unitToken := req.Body.str("unit_token")
	var more []string
	if rt.Auth == AuthUnits && unitToken == "" {
		if raw, ok := req.Body.Fields["unit_tokens"]; ok && string(raw) != "null" {
			if json.Unmarshal(raw, &more) != nil {
				return nil, rt.FormatError("unit_tokens")
			}
			if len(more) > 0 && more[0] != "" {
				unitToken, more = more[0], more[1:]
			}
		}
	}
	tec := ""
	if rt.Auth == AuthTecOrAccess && access == "" {
		tec = req.Body.str("token_tec")
	}
	if (access == "" && tec == "") || unitToken == "" {
		return nil, rt.Texts.Missing
	}
	domainToken := access
	if tec != "" {
		if err := s.System.CheckTecToken(req.Ctx, tec); err != nil {
			return nil, s.authError(rt, err)
		}
		domainToken = unitToken
	}
	name, ok := store.TokenDomain(domainToken)
	if !ok {
		return nil, rt.Texts.Invalid
	}
	db, release, err := s.Domains.Acquire(req.Ctx, name)
	if err != nil {
		if errors.Is(err, store.ErrNoDomain) {
			return nil, s.authError(rt, store.ErrUnauthorized)
		}
		return nil, err
	}
	var u store.Unit
	if tec != "" {
		u, err = db.UnitByToken(req.Ctx, unitToken)
	} else {
		u, req.actor, err = db.Authenticate(req.Ctx, access, unitToken)
	}
	var others []store.Unit
	if err == nil && len(more) > 0 {
		others, err = db.UnitsByTokens(req.Ctx, more)
	}
	if err != nil {
		release()
		return nil, s.authError(rt, err)
	}
	req.DB, req.Unit, req.Units = db, u, append([]store.Unit{u}, others...)
	RequestInfo(req.Ctx).Domain = name
	return release, nil
}

func (s *Mux) authError(rt *Route, err error) error {
	switch {
	case errors.Is(err, store.ErrUnauthorized):
		return rt.Texts.Invalid
	case errors.Is(err, store.ErrUnitNotFound):
		return rt.Texts.Unit
	}
	return err
}

// AuthenticateDomain checks an access token alone and opens its domain.
func (s *Mux) AuthenticateDomain(req *Request, access string) (func(), error) {
	rt := req.Route
	if access == "" {
		return nil, rt.Texts.Missing
	}
	name, ok := store.TokenDomain(access)
	if !ok {
		return nil, rt.Texts.Invalid
	}
	db, release, err := s.Domains.Acquire(req.Ctx, name)
	if errors.Is(err, store.ErrNoDomain) {
		return nil, rt.Texts.Invalid
	}
	if err != nil {
		return nil, err
	}
	if err := db.CheckAccessToken(req.Ctx, access); err != nil {
		release()
		return nil, s.authError(rt, err)
	}
	req.DB = db
	RequestInfo(req.Ctx).Domain = name
	return release, nil
}

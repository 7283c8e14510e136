package server

import (
	"encoding/json"
	"errors"

	"fincom/store"
)

// authKind is how a route is authenticated.
type authKind int

const (
	// authUnit: access_token and unit_token in the body (spec,
	// Authentication 1).
	authUnit authKind = iota
	// authTecOrAccess: like authUnit, or token_tec instead of access_token
	// (spec, Authentication 3).
	authTecOrAccess
	// authUnits: like authUnit, or unit_tokens (an array of units of the
	// access token's domain) instead of unit_token (spec, Authentication 4).
	authUnits
	// authDomain: access_token alone (test-mode routes act on a domain).
	authDomain
	// authPublic: no tokens; the order's public token is in the path or
	// body (spec, Authentication 7).
	authPublic
)

// authenticate resolves the route's tokens to a domain and unit and keeps
// the domain open until release. Failures carry the route's own texts
// (spec, Authentication 8).
func (s *Server) authenticate(req *request) (release func(), err error) {
	rt := req.route
	if rt.auth == authPublic {
		return func() {}, nil
	}
	// A token sent as a number or an object is a client's bug: the
	// route's format text, not "missing".
	if name := req.body.nonString("access_token", "unit_token", "token_tec"); name != "" {
		return nil, rt.formatError(name)
	}
	access := req.body.str("access_token")
	if rt.auth == authDomain {
		return s.authenticateDomain(req, access)
	}
	unitToken := req.body.str("unit_token")
	var more []string
	if rt.auth == authUnits && unitToken == "" {
		if raw, ok := req.body.fields["unit_tokens"]; ok && string(raw) != "null" {
			if json.Unmarshal(raw, &more) != nil {
				return nil, rt.formatError("unit_tokens")
			}
			if len(more) > 0 && more[0] != "" {
				unitToken, more = more[0], more[1:]
			}
		}
	}
	tec := ""
	if rt.auth == authTecOrAccess && access == "" {
		tec = req.body.str("token_tec")
	}
	if (access == "" && tec == "") || unitToken == "" {
		return nil, rt.texts.missing
	}
	domainToken := access
	if tec != "" {
		if err := s.system.CheckTecToken(req.ctx, tec); err != nil {
			return nil, s.authError(rt, err)
		}
		domainToken = unitToken
	}
	name, ok := store.TokenDomain(domainToken)
	if !ok {
		return nil, rt.texts.invalid
	}
	db, release, err := s.domains.Acquire(req.ctx, name)
	if err != nil {
		if errors.Is(err, store.ErrNoDomain) {
			return nil, s.authError(rt, store.ErrUnauthorized)
		}
		return nil, err
	}
	var u store.Unit
	if tec != "" {
		u, err = db.UnitByToken(req.ctx, unitToken)
	} else {
		u, req.actor, err = db.Authenticate(req.ctx, access, unitToken)
	}
	var others []store.Unit
	if err == nil && len(more) > 0 {
		others, err = db.UnitsByTokens(req.ctx, more)
	}
	if err != nil {
		release()
		return nil, s.authError(rt, err)
	}
	req.db, req.unit, req.units = db, u, append([]store.Unit{u}, others...)
	requestInfo(req.ctx).domain = name
	return release, nil
}

func (s *Server) authError(rt *route, err error) error {
	switch {
	case errors.Is(err, store.ErrUnauthorized):
		return rt.texts.invalid
	case errors.Is(err, store.ErrUnitNotFound):
		return rt.texts.unit
	}
	return err
}

// authenticateDomain checks an access token alone and opens its domain.
func (s *Server) authenticateDomain(req *request, access string) (func(), error) {
	rt := req.route
	if access == "" {
		return nil, rt.texts.missing
	}
	name, ok := store.TokenDomain(access)
	if !ok {
		return nil, rt.texts.invalid
	}
	db, release, err := s.domains.Acquire(req.ctx, name)
	if errors.Is(err, store.ErrNoDomain) {
		return nil, rt.texts.invalid
	}
	if err != nil {
		return nil, err
	}
	if err := db.CheckAccessToken(req.ctx, access); err != nil {
		release()
		return nil, s.authError(rt, err)
	}
	req.db = db
	requestInfo(req.ctx).domain = name
	return release, nil
}

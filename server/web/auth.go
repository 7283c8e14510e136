package web

import (
	"encoding/json"
	"errors"

	"fincom/server/access"
	"fincom/server/problem"

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
	// A technical token is the operator's: it may do what an owner may.
	a := store.Access{Role: store.RoleOwner}
	if tec != "" {
		a.Unit, err = db.UnitByToken(req.Ctx, unitToken)
	} else {
		a, err = db.Authenticate(req.Ctx, access, unitToken)
	}
	req.actor = a.Actor
	units, roles := []store.Unit{a.Unit}, []store.Role{a.Role}
	if err == nil && len(more) > 0 {
		units, roles, err = otherUnits(req, db, a, more)
	}
	if err != nil {
		release()
		return nil, s.authError(rt, err)
	}
	req.DB, req.Unit, req.Units, req.roles = db, a.Unit, units, roles
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
	userID, err := db.CheckAccessToken(req.Ctx, access)
	if err == nil && userID != 0 {
		// A route on the whole domain is for tokens of the operator or
		// of an owner of every unit.
		var gs store.Grants
		if gs, err = db.UserGrants(req.Ctx, userID); err == nil && !gs.OwnerOfAll() {
			err = store.ErrUnauthorized
		}
	}
	if err != nil {
		release()
		return nil, s.authError(rt, err)
	}
	req.DB = db
	RequestInfo(req.Ctx).Domain = name
	return release, nil
}

// otherUnits resolves the further units of an AuthUnits request, each with
// the token's role on it: a unit its user has no role on is not found,
// as a unit of another domain.
func otherUnits(req *Request, db *store.DB, a store.Access, more []string) ([]store.Unit, []store.Role, error) {
	others, err := db.UnitsByTokens(req.Ctx, more)
	if err != nil {
		return nil, nil, err
	}
	var gs store.Grants
	if a.UserID != 0 {
		if gs, err = db.UserGrants(req.Ctx, a.UserID); err != nil {
			return nil, nil, err
		}
	}
	units, roles := []store.Unit{a.Unit}, []store.Role{a.Role}
	for _, u := range others {
		role := a.Role
		if a.UserID != 0 {
			if role = gs.On(u.ID); role == "" {
				return nil, nil, store.ErrUnitNotFound
			}
		}
		units, roles = append(units, u), append(roles, role)
	}
	return units, roles, nil
}

// AreaOf is the area the route's writes change: its own, or its tag's.
func (rt *Route) AreaOf() access.Area {
	if rt.Area != "" {
		return rt.Area
	}
	switch rt.Doc.Tag {
	case TagFinance, TagDocuments, TagPurchases:
		return access.Finance
	case TagSales, TagContracts, TagCRM, TagInventory:
		return access.Sales
	case TagRegisters:
		return access.Registers
	}
	// Webhooks, test mode and whatever has no area: owners only.
	return access.Admin
}

// Role is the access token's role on the request's unit ("" none).
func (req *Request) Role() store.Role {
	for i, u := range req.Units {
		if u.ID == req.Unit.ID && i < len(req.roles) {
			return req.roles[i]
		}
	}
	return ""
}

// permit refuses a write the access token's role may not make, on any of
// the request's units: 403 with the route's text for a token it does not
// accept, and in details the role and what it may not change.
func permit(req *Request) error {
	rt := req.Route
	if !rt.Write || req.DB == nil {
		return nil
	}
	area := rt.AreaOf()
	for i, role := range req.roles {
		if !access.May(role, area) {
			return problem.New(problem.Forbidden, rt.Texts.Invalid.Text).With(map[string]string{
				"reason": textRoleMayNot, "role": string(role), "area": string(area), "unit_token": req.Units[i].Token})
		}
	}
	return nil
}

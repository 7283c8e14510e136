package portal

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"fincom/render"
	"fincom/server/registers"
	"fincom/store"
)

// The users page (/portal/users) is an owner of every unit's: who the
// domain's users are and the role each has per unit. Every change is in
// the audit log under the owner who made it.

// usersPage shows the domain's users with their roles and the forms.
func (s *Portal) usersPage(p *portalRequest, status int, form render.PortalUserForm, notice, errText string) {
	if !p.grants.OwnerOfAll() {
		p.page(s, http.StatusForbidden, "units", "Sem permissão", "", []render.PortalUnit{}, "", roleRefusal(p.role))
		return
	}
	users, err := p.db.Users(p.ctx)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	all, err := p.db.DomainGrants(p.ctx)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalUsers{Form: form}
	for _, u := range users {
		body.Users = append(body.Users, render.PortalUser{Name: u.Name, Email: u.Email, Roles: grantNames(all[u.ID])})
	}
	for _, r := range store.Roles {
		body.Roles = append(body.Roles, render.PortalOption{Value: string(r), Label: roleName(r)})
	}
	p.page(s, status, "users", "Usuários", "users", body, notice, errText)
}

// userUnit reads a form's unit: "" is every unit (0), else one of the
// domain's by token.
func (p *portalRequest) userUnit(token string) (int64, bool) {
	if token == "" {
		return 0, true
	}
	for _, u := range p.units {
		if u.Token == token {
			return u.ID, true
		}
	}
	return 0, false
}

// portalCreateUser: POST /portal/users adds a user with a role.
func (s *Portal) portalCreateUser(p *portalRequest) {
	f := render.PortalUserForm{Name: strings.TrimSpace(p.r.PostFormValue("name")), Email: strings.TrimSpace(p.r.PostFormValue("email")),
		Role: p.r.PostFormValue("role"), Unit: p.r.PostFormValue("unit_token")}
	role, okRole := store.ParseRole(f.Role)
	unitID, okUnit := p.userUnit(f.Unit)
	refuse := func(text string) { s.usersPage(p, http.StatusBadRequest, f, "", "O usuário não foi criado: "+text) }
	switch {
	case f.Name == "" || utf8.RuneCountInString(f.Name) > 120:
		refuse("informe o nome (até 120 caracteres).")
		return
	case len(f.Email) > 254 || !registers.ValidEmail(f.Email):
		refuse("informe um e-mail válido.")
		return
	case !okRole || !okUnit:
		refuse("escolha um papel e uma unidade da lista.")
		return
	}
	if _, err := p.db.CreateUserAs(p.ctx, f.Name, f.Email, role, unitID); err != nil {
		if errors.Is(err, store.ErrDuplicate) {
			refuse("já há um usuário com esse e-mail no domínio.")
			return
		}
		s.portalFailed(p, err)
		return
	}
	s.usersPage(p, http.StatusOK, render.PortalUserForm{}, f.Name+" pode entrar no portal com o e-mail "+f.Email+".", "")
}

// portalSetRole: POST /portal/users/role gives a user a role on a unit or
// on every unit, or ("none") takes it away.
func (s *Portal) portalSetRole(p *portalRequest) {
	email, roleName := strings.TrimSpace(p.r.PostFormValue("email")), p.r.PostFormValue("role")
	var role store.Role
	okRole := roleName == "none"
	if !okRole {
		role, okRole = store.ParseRole(roleName)
	}
	unitID, okUnit := p.userUnit(p.r.PostFormValue("unit_token"))
	refuse := func(text string) {
		s.usersPage(p, http.StatusBadRequest, render.PortalUserForm{}, "", "O papel não foi alterado: "+text)
	}
	if !okRole || !okUnit {
		refuse("escolha um papel e uma unidade da lista.")
		return
	}
	u, err := p.db.UserByEmail(p.ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		refuse("não há usuário ativo com esse e-mail.")
		return
	}
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	if err := p.db.SetUserRole(p.ctx, u.ID, unitID, role); err != nil {
		if errors.Is(err, store.ErrLastOwner) {
			refuse("o domínio ficaria sem um proprietário de todas as unidades. Torne outro usuário proprietário antes.")
			return
		}
		s.portalFailed(p, err)
		return
	}
	s.usersPage(p, http.StatusOK, render.PortalUserForm{}, "Papel de "+u.Name+" alterado.", "")
}

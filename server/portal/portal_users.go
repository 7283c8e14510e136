package portal

import (
	"net/http"

	"fincom/render"
)

// The users page (/portal/users) is an owner of every unit's overview of
// the domain's users and the role each has per unit. People are invited
// and their roles changed in each unit's Configurações (Pessoas).

// usersPage shows the domain's users with their roles, and the units
// whose Configurações manage them.
func (s *Portal) usersPage(p *portalRequest) {
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
	var body render.PortalUsers
	for _, u := range users {
		body.Users = append(body.Users, render.PortalUser{Name: u.Name, Email: u.Email, Roles: grantNames(all[u.ID])})
	}
	p.page(s, http.StatusOK, "users", "Usuários", "users", body, "", "")
}

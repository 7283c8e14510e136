package portal

import (
	"strings"

	"fincom/render"
	"fincom/server/access"
	"fincom/store"
)

// formArea is what a portal form changes, by the path it is sent to: the
// signed-in user's role on the unit must be allowed it (access.May). ""
// is the user's own: its session and its access tokens. What is not
// listed is the domain's owners' (access.Admin).
func formArea(path string) access.Area {
	switch {
	case path == "/portal/logout", strings.HasPrefix(path, "/portal/profile/"):
		return ""
	case strings.HasPrefix(path, "/portal/orders/"):
		switch path[strings.LastIndexByte(path, '/')+1:] {
		case "charge", "cancel_charge", "refund":
			return access.Charges
		case "invoice", "cancel_invoice", "correct", "substitute":
			return access.Invoices
		}
		return access.Sales
	case path == "/portal/new-order", strings.HasPrefix(path, "/portal/contracts"):
		return access.Sales
	case strings.HasPrefix(path, "/portal/overdue"), path == "/portal/import/return":
		return access.Charges
	case strings.HasPrefix(path, "/portal/contacts"), strings.HasPrefix(path, "/portal/products"):
		return access.Registers
	case strings.HasPrefix(path, "/portal/transactions"), strings.HasPrefix(path, "/portal/statement"),
		path == "/portal/import/statement", path == "/portal/import/nfe":
		return access.Finance
	}
	return access.Admin
}

// mayPost reports whether the user may send the request's form: the
// domain's users and everything not listed only an owner of every unit.
func (p *portalRequest) mayPost() bool {
	switch area := formArea(p.r.URL.Path); area {
	case "":
		return true
	case access.Admin:
		return p.grants.OwnerOfAll()
	default:
		return access.May(p.role, area)
	}
}

// can is what the page's forms may offer the user on the unit shown.
func (p *portalRequest) can() render.PortalCan {
	return render.PortalCan{Finance: access.May(p.role, access.Finance), Sales: access.May(p.role, access.Sales),
		Charges: access.May(p.role, access.Charges), Invoices: access.May(p.role, access.Invoices),
		Registers: access.May(p.role, access.Registers), Users: p.grants.OwnerOfAll()}
}

// roleRefusal is the page's error when a form was refused by the role.
func roleRefusal(role store.Role) string {
	return "Seu papel nesta unidade (" + roleName(role) + ") não permite esta alteração: nada foi salvo. Peça a um proprietário do domínio."
}

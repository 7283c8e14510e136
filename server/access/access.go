// Package access is who may change what: the areas of fincom's data and
// the roles that may change each. Every role reads the units it is given;
// the API (server/web) and the portal ask May before a change.
package access

import "fincom/store"

// Area is a part of a unit's data that changes together.
type Area string

const (
	// Finance: entries and their files, statements and reconciliation,
	// documents read and screened, purchases and the NF-e inbox.
	Finance Area = "finance"
	// Sales: orders, contracts, CRM and stock.
	Sales Area = "sales"
	// Charges: boletos and PIX, their bank files, payments recorded by
	// hand. Finance collects them and sales issues them.
	Charges Area = "charges"
	// Invoices: fiscal invoices issued, cancelled, replaced and sent.
	Invoices Area = "invoices"
	// Registers: contacts, products, categories, projects, bank
	// accounts, which both finance and sales keep.
	Registers Area = "registers"
	// Admin: users, roles, access tokens and webhooks.
	Admin Area = "admin"
)

// mayChange lists the roles below owner that may change each area; an
// owner changes every area and an accountant none.
var mayChange = map[Area][]store.Role{
	Finance:   {store.RoleFinance},
	Sales:     {store.RoleSales},
	Charges:   {store.RoleFinance, store.RoleSales},
	Invoices:  {store.RoleFinance},
	Registers: {store.RoleFinance, store.RoleSales},
}

// May reports whether role may change area. A role of "" (no role on the
// unit) may do nothing.
func May(role store.Role, area Area) bool {
	if role == store.RoleOwner {
		return true
	}
	for _, r := range mayChange[area] {
		if r == role {
			return true
		}
	}
	return false
}

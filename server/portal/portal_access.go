package portal

import (
	"context"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/access"
	"fincom/store"
)

// What a form does when no API route does the same: the user's own
// session and access tokens, or the domain's users and their roles.
const (
	actOwn   = "own"
	actOwner = "owner" // an owner of the unit: its settings and people
)

// Form is a form the portal takes (a POST route) and what sending it
// does, each named by the API route of the same action: the role rule of
// that route (its area in the API's route table) is the form's.
type Form struct {
	Path string // httprouter's pattern
	// Act is what every send does: an API route's path, or actOwn
	// (anyone signed in) or actOwner (an owner of the unit).
	Act    string
	handle httprouter.Handle
}

// Forms lists every form the portal takes from a signed-in user, which
// Routes registers: beside the sign-in's two, no POST route of the
// portal exists outside it.
func (s *Portal) Forms() []Form {
	order := func(action string) httprouter.Handle {
		return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
			s.portalOrderAction(w, r, ps, action)
		}
	}
	return []Form{
		{Path: "/portal/profile/tokens", Act: actOwn, handle: s.withSession(s.portalCreateToken)},
		{Path: "/portal/profile/tokens/revoke", Act: actOwn, handle: s.withSession(s.portalRevokeToken)},
		{Path: "/portal/logout", Act: actOwn, handle: s.withSession(s.portalLogout)},
		{Path: "/portal/settings/profile", Act: actOwner, handle: s.withSession(s.portalSettingsProfile)},
		{Path: "/portal/settings/certificate", Act: actOwner, handle: s.withSession(s.portalSettingsCertificate)},
		{Path: "/portal/settings/pix", Act: actOwner, handle: s.withSession(s.portalSettingsPix)},
		{Path: "/portal/settings/environment", Act: actOwner, handle: s.withSession(s.portalSettingsEnvironment)},
		{Path: "/portal/settings/contingency", Act: actOwner, handle: s.withSession(s.portalSettingsContingency)},
		{Path: "/portal/settings/psp", Act: actOwner, handle: s.withSession(s.portalSettingsPSP)},
		{Path: "/portal/settings/agreement", Act: actOwner, handle: s.withSession(s.portalSettingsAgreement)},
		{Path: "/portal/settings/remittance", Act: actOwner, handle: s.withSession(s.portalRemittance)},
		{Path: "/portal/settings/people", Act: actOwner, handle: s.withSession(s.portalInvite)},
		{Path: "/portal/settings/people/role", Act: actOwner, handle: s.withSession(s.portalPersonRole)},
		{Path: "/portal/settings/accountant", Act: actOwner, handle: s.withSession(s.portalSettingsAccountant)},
		{Path: "/portal/settings/reminders", Act: actOwner, handle: s.withSession(s.portalSettingsReminders)},
		{Path: "/portal/settings/order-pdf", Act: actOwner, handle: s.withSession(s.portalSettingsOrderPDF)},
		{Path: "/portal/settings/accountant/send", Act: actOwner, handle: s.withSession(s.portalSendPackage)},
		{Path: "/portal/orders/:token/charge", Act: "/generate_charge", handle: order("charge")},
		{Path: "/portal/orders/:token/cancel_charge", Act: "/cancel_charge", handle: order("cancel_charge")},
		{Path: "/portal/orders/:token/due_date", Act: "/change_charge_due_date", handle: order("due_date")},
		{Path: "/portal/orders/:token/refund", Act: "/refund_charge", handle: order("refund")},
		// A held Pix: accepted or kept, it settles (part of) a charge, as
		// /settle_charge does; refunded, it is given back as
		// /refund_charge gives.
		{Path: "/portal/orders/:token/pix/accept", Act: "/settle_charge", handle: order("pix_accept")},
		{Path: "/portal/orders/:token/pix/keep", Act: "/settle_charge", handle: order("pix_keep")},
		{Path: "/portal/orders/:token/pix/refund", Act: "/refund_charge", handle: order("pix_refund")},
		{Path: "/portal/orders/:token/invoice", Act: "/generate_nf", handle: order("invoice")},
		{Path: "/portal/orders/:token/cancel_invoice", Act: "/cancel_nf", handle: order("cancel_invoice")},
		// A correction letter has no API route: it is an invoice's event,
		// as a cancellation (by substitution too) is, refused as
		// /cancel_nf refuses.
		{Path: "/portal/orders/:token/correct", Act: "/cancel_nf", handle: order("correct")},
		{Path: "/portal/orders/:token/substitute", Act: "/cancel_nf", handle: order("substitute")},
		{Path: "/portal/overdue", Act: "/resend_charge", handle: s.portalRemind},
		{Path: "/portal/overdue/:token/resend", Act: "/resend_charge", handle: s.portalResend},
		{Path: "/portal/contacts", Act: "/insert_contact", handle: s.withSession(s.portalCreateContact)},
		{Path: "/portal/contacts/:token", Act: "/update_contact", handle: s.withToken(s.portalEditContact)},
		{Path: "/portal/products", Act: "/insert_product_or_service", handle: s.withSession(s.portalCreateProduct)},
		{Path: "/portal/products/:token", Act: "/update_product_or_service", handle: s.withToken(s.portalEditProduct)},
		{Path: "/portal/contracts", Act: "/insert_contract", handle: s.withSession(s.portalCreateContract)},
		{Path: "/portal/contracts/:token", Act: "/update_contract", handle: s.withToken(s.portalEditContract)},
		{Path: "/portal/contracts/:token/status", Act: "/enable_contract", handle: s.withToken(s.portalContractStatus)},
		// Its charge and invoice, asked with it, are sales.Create's to
		// allow by the user's role.
		{Path: "/portal/new-order", Act: "/insert_sales_order", handle: s.withSession(s.portalNewOrder)},
		{Path: "/portal/import/statement", Act: "/import_ofx", handle: s.withSession(s.portalImportStatement)},
		{Path: "/portal/import/return", Act: "/import_return", handle: s.withSession(s.portalImportReturn)},
		{Path: "/portal/import/nfe", Act: "/import_nfe", handle: s.withSession(s.portalImportNotes)},
		{Path: "/portal/transactions", Act: "/insert_expense", handle: s.withSession(s.portalNewEntry)},
		{Path: "/portal/transactions/:token/pay", Act: "/update_expense", handle: s.portalPayEntry},
		{Path: "/portal/transactions/:token/files/:file/remove", Act: "/delete_expense_files", handle: s.withEntry("/delete_income_files", s.portalRemoveEntryFile)},
		{Path: "/portal/transactions/:token/stop", Act: "/update_expense", handle: s.withEntry("/update_income", s.portalStopRecurrence)},
		{Path: "/portal/transactions/:token/cancel-group", Act: "/cancel_entry_group", handle: s.withEntry("", s.portalCancelGroup)},
		{Path: "/portal/transactions/:token", Act: "/update_expense", handle: s.withToken(s.portalEditEntry)},
		{Path: "/portal/statement/:token", Act: "/reconcile_statement_line", handle: s.portalReconcile},
	}
}

// formKey marks a request's context with the form it was sent to.
type formKey struct{}

// registerForms registers every form under its path, each request
// carrying its form for withSession's check.
func (s *Portal) registerForms(r *httprouter.Router) {
	for _, f := range s.Forms() {
		r.POST(f.Path, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
			f.handle(w, req.WithContext(context.WithValue(req.Context(), formKey{}, f)), ps)
		})
	}
}

// MayAct reports whether role may do on a unit what the API route at
// path does: the area the API's route table gives it (access.May). A path
// the table does not hold is allowed to nobody.
func (s *Portal) MayAct(role store.Role, path string) bool {
	for i := range s.APIRoutes {
		if rt := &s.APIRoutes[i]; rt.Path == path {
			return !rt.Write || access.May(role, rt.AreaOf())
		}
	}
	return false
}

// mayPost reports whether the user may send the request's form: what it
// does. A request that came by no form is refused.
func (s *Portal) mayPost(p *portalRequest) bool {
	f, ok := p.r.Context().Value(formKey{}).(Form)
	switch {
	case !ok:
		return false
	case f.Act == actOwn:
		return true
	case f.Act == actOwner:
		return p.unit.ID != 0 && p.role == store.RoleOwner
	}
	return s.MayAct(p.role, f.Act)
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

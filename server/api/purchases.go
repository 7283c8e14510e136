package api

import (
	"errors"
	"net/http"
	"strings"

	"fincom/server/brdoc"
	"fincom/server/docread"
	"fincom/server/fiscal/sefaz"
	"fincom/server/inbox"
	"fincom/server/invoicing"
	"fincom/server/registers"
	"fincom/server/web"
	"fincom/store"
)

// purchases handles the routes of purchase orders and the NF-e inbox (routes.go).
type purchases struct{ *API }

var (
	errKeyIssuer          = web.NewError(http.StatusUnprocessableEntity, "Invalid access key: its issuer's CNPJ is not a valid CNPJ, so no supplier can be made of it.")
	errInvalidAccessKeyPO = web.NewError(http.StatusUnprocessableEntity, "Invalid access key: use the 44 digits with a valid check digit.")
	errPurchaseExists     = web.NewError(http.StatusConflict, "A purchase order for this access key already exists.")
	errNFeInInbox         = web.NewError(http.StatusConflict, "This NF-e is already in the inbox.")
	errNotNFe             = web.NewError(http.StatusUnprocessableEntity, "The file is not a readable NF-e XML.")
	errForeignNFe         = web.NewError(http.StatusUnprocessableEntity, "The NF-e was not issued to this unit's CNPJ.")
	errNFeSignature       = web.NewError(http.StatusUnprocessableEntity, "The NF-e's signature does not verify (details.reason): it changed after it was signed, or the issuer's certificate did not sign it. Nothing was stored.")
	errNFeNotConfirmed    = web.NewError(http.StatusUnprocessableEntity, "The tax authority does not confirm this NF-e as authorized (details.code, details.reason): it does not know it, it was cancelled, or it is not the note it authorized. Nothing was stored.")
	errNFeNotAuthorized   = web.NewError(http.StatusUnprocessableEntity, "The NF-e has no authorization protocol: import the nfeProc the issuer received from SEFAZ (with its protNFe, cStat 100). Nothing was stored.")
	errNFeConfirmDown     = web.NewError(http.StatusBadGateway, "The tax authority did not answer when asked to confirm the NF-e. Try again: nothing was stored.")
	errNFeNotFound        = web.NewError(http.StatusNotFound, "NF-e not found in the unit's inbox.")
	errManifestReason     = web.NewError(http.StatusBadRequest, "Operação não realizada needs a justification of 15 to 255 characters.")
	errManifestDone       = web.NewError(http.StatusConflict, "The NF-e already has a conclusive manifestation.")
	errManifestTwice      = web.NewError(http.StatusConflict, "Ciência da operação was already recorded.")
)

// importNFe (a fincom route: it stands in for the tax authority's
// distribution service) puts an uploaded NF-e XML in the unit's inbox.
func (s purchases) importNFe(r *web.Request) (any, error) {
	f, err := oneFile(r)
	if err != nil {
		return nil, err
	}
	token, _, err := s.Invoices.ImportNote(r.Ctx, r.DB, r.Unit, f.Data, s.TestMode)
	var nc *invoicing.NotConfirmedError
	switch {
	case errors.Is(err, inbox.ErrForeign):
		return nil, errForeignNFe
	case errors.Is(err, inbox.ErrNotAuthorized):
		return nil, errNFeNotAuthorized
	case errors.Is(err, inbox.ErrSignature):
		return nil, errNFeSignature.With(map[string]string{"reason": err.Error()})
	case errors.Is(err, invoicing.ErrUnreadableNote):
		return nil, errNotNFe
	case errors.As(err, &nc):
		return nil, errNFeNotConfirmed.With(map[string]any{"code": nc.Code, "reason": sefaz.Shown(nc.Reason)})
	case errors.Is(err, invoicing.ErrConfirmDown):
		// The route's errNFeConfirmDown; the operator sees why.
		s.Log.Warn("confirm an imported NF-e", "error", err)
		return nil, err
	case err != nil:
		return nil, err
	}
	return web.TokenAnswer{Message: "NF-e imported into the inbox.", Token: token}, nil
}

// listNFes answers the unit's NF-e inbox, newest first.
func (s purchases) listNFes(r *web.Request, q *web.PageRequest) (any, error) {
	pg := q.StorePage()
	list, total, err := r.DB.InboxNFes(r.Ctx, r.Unit.ID, pg)
	return web.PageOf(list, total, pg, err)
}

type manifestRequest struct {
	ID            string `json:"access_key" alias:"id_token,token" required:"true" doc:"The NF-e's 44-digit access key, as the inbox lists it."`
	Event         string `json:"event" alias:"manifestation" required:"true" enum:"ciencia,confirmacao,desconhecimento,nao_realizada" doc:"ciencia (aware), confirmacao (operation confirmed), desconhecimento (unknown operation) or nao_realizada (operation not carried out)."`
	Justification string `json:"justification" alias:"justificativa" doc:"Why the operation was not carried out (15 to 255 characters; nao_realizada only)."`
}

func (q *manifestRequest) Validate() error {
	q.ID, q.Justification = strings.TrimSpace(q.ID), strings.TrimSpace(q.Justification)
	switch {
	case q.Event == "nao_realizada" && (len([]rune(q.Justification)) < 15 || len([]rune(q.Justification)) > 255):
		return errManifestReason
	}
	return nil
}

// manifestNFe records the recipient's manifestation of an NF-e of the
// inbox: ciência da operação (once, optional, first), then one conclusive
// event: confirmação da operação, desconhecimento, or operação não
// realizada (with a justification of 15 to 255 characters).
func (s purchases) manifestNFe(r *web.Request, q *manifestRequest) (any, error) {
	if err := r.DB.Manifest(r.Ctx, r.Unit.ID, q.ID, q.Event, q.Justification); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Manifestation recorded.", Token: q.ID}, nil
}

type purchaseByKeyRequest struct {
	// AccessKey is 44 digits, as printed or in groups of four.
	AccessKey string `json:"access_key" alias:"accessKey,chave" required:"true" pattern:"^\\s*([0-9]{4} ?){10}[0-9]{4}\\s*$" doc:"The NF-e's 44-digit access key (spaces between groups of four allowed), its check digit verified."`
	Category  string `json:"category_id_token" alias:"id_token_category,categoryId" doc:"The category of the order's expense."`
	Project   string `json:"id_token_project" alias:"projectId" doc:"The project the purchase is for."`
}

// keyShape is an access key's, from its tag.
var keyShape = web.TagPattern(purchaseByKeyRequest{}, "AccessKey")

func (q *purchaseByKeyRequest) Validate() error {
	if !keyShape.MatchString(q.AccessKey) {
		return errInvalidAccessKeyPO
	}
	q.AccessKey = brdoc.Digits(q.AccessKey)
	if !brdoc.ValidAccessKey(q.AccessKey) {
		return errInvalidAccessKeyPO
	}
	// The key names its issuer; a CNPJ whose check digits fail names no
	// firm (SEFAZ authorizes no such document), so no supplier is made of
	// it (TestPurchaseOnlyValidSuppliers).
	if !brdoc.ValidCNPJ(q.AccessKey[6:20]) {
		return errKeyIssuer
	}
	return nil
}

// insertPurchaseOrderByAccessKey creates a purchase order from an NF-e key:
// filled from the XML when the NF-e is in the unit's inbox, else from what
// the key says, awaiting its XML. The supplier becomes a contact when new.
func (s purchases) insertPurchaseOrderByAccessKey(r *web.Request, q *purchaseByKeyRequest) (any, error) {
	k := q.AccessKey
	f := store.PurchaseFields{AccessKey: k, Status: "awaiting_xml", CategoryToken: q.Category, ProjectToken: q.Project,
		SupplierCNPJ: k[6:20], SupplierName: "Fornecedor " + brdoc.FormatCNPJ(k[6:20]), Items: []store.PurchaseItem{},
		KeyInfo: store.KeyInfo{State: k[0:2], YearMonth: "20" + k[2:4] + "-" + k[4:6], CNPJ: k[6:20], Model: k[20:22], Series: k[22:25], Number: k[25:34]}}
	if x, err := r.DB.InboxXML(r.Ctx, r.Unit.ID, k); err == nil {
		doc, err := docread.ReadXML(x)
		if err != nil {
			return nil, err
		}
		v := func(name string) string { return doc.Fields[name].Value }
		money := func(name string) store.Money { m, _ := store.ParseMoney(v(name)); return m }
		f.Status, f.SupplierName, f.IssueDate, f.XMLFileName = "complete", v("supplier_name"), v("issue_date"), k+"-nfe.xml"
		f.EstimatedPaymentDate = v("due_date")
		if f.EstimatedPaymentDate == "" {
			f.EstimatedPaymentDate = f.IssueDate
		}
		f.Total, f.ItemsTotal, f.Freight, f.TotalTax = money("value"), money("items_total"), money("freight_value"), money("total_tax")
		var itemsTax store.Money
		for _, it := range doc.Items {
			if it.Tax == "" {
				it.Tax = "0.00"
			}
			f.Items = append(f.Items, store.PurchaseItem{Code: it.Code, Description: it.Description, NCM: it.NCM, CFOP: it.CFOP, Unit: it.Unit,
				Quantity: it.Quantity, UnitValue: it.UnitValue, Total: it.Total, Tax: it.Tax})
			if t, err := store.ParseMoney(it.Tax); err == nil {
				itemsTax = store.NewMoney(itemsTax.Add(t.Decimal))
			}
		}
		f.ItemsTax = itemsTax
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	// The supplier becomes a contact by the rules every contact meets.
	if err := registers.CheckContact(&store.ContactFields{Type: "legal", Register: f.SupplierCNPJ, SocialReason: f.SupplierName}); err != nil {
		return nil, errKeyIssuer
	}
	token, err := r.DB.InsertPurchaseOrder(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Purchase order created successfully.", Token: token}, nil
}

type listPurchasesRequest struct {
	DateFrom  string `json:"date_from" format:"date" doc:"Orders whose estimated payment date is on or after this day."`
	DateTo    string `json:"date_to" format:"date" doc:"Orders whose estimated payment date is on or before this day."`
	Contact   string `json:"id_token_contact"`
	Category  string `json:"category_id_token"`
	Project   string `json:"id_token_project"`
	Search    string `json:"search" doc:"Text found in the supplier's name or document, or an item's description or code."`
	AccessKey string `json:"access_key" doc:"Only the order of this NF-e access key."`
	Code      string `json:"code" doc:"Only the order of this code (PC-000001)."`
}

// listPurchaseOrders answers the unit's purchase orders by every filter of
// the spec (dates on the estimated payment date, YYYY-MM-DD: another is
// the route's format error naming it, not a filter that matches nothing).
func (s purchases) listPurchaseOrders(r *web.Request, q *listPurchasesRequest) (any, error) {
	for _, d := range []struct {
		name  string
		value *string
	}{{"date_from", &q.DateFrom}, {"date_to", &q.DateTo}} {
		if v := strings.TrimSpace(*d.value); v != "" {
			day, err := store.ParseDateISO(v)
			if err != nil {
				return nil, r.Route.FormatError(d.name)
			}
			*d.value = day.ISO()
		}
	}
	return r.DB.PurchaseOrders(r.Ctx, r.Unit.ID, store.PurchaseFilter{From: q.DateFrom, To: q.DateTo, ContactToken: q.Contact,
		CategoryToken: q.Category, ProjectToken: q.Project, Search: strings.TrimSpace(q.Search), AccessKey: brdoc.Digits(q.AccessKey), Code: q.Code})
}

// getPurchaseOrderByID answers one purchase order of the unit.
func (s purchases) getPurchaseOrderByID(r *web.Request, q *web.IdRequest) (any, error) {
	return r.DB.PurchaseOrder(r.Ctx, r.Unit.ID, q.IDToken)
}

type setPurchaseActiveRequest struct {
	ID     string `json:"id_token_purchase_order" alias:"id_token,token" required:"true"`
	Active *bool  `json:"active" required:"true" doc:"true to enable the order, false to disable it."`
}

type purchaseActive struct {
	ID     string `json:"id" doc:"The purchase order's token."`
	Active bool   `json:"active" doc:"Its active flag now."`
}

// setPurchaseOrderActive (spec): {ok, message, data: {id, active}} nested in
// data; a purchase order of another unit is invalid data.
func (s purchases) setPurchaseOrderActive(r *web.Request, q *setPurchaseActiveRequest) (any, error) {
	if err := r.DB.SetPurchaseOrderActive(r.Ctx, r.Unit.ID, q.ID, *q.Active); err != nil {
		return nil, err
	}
	return web.OkData{OK: true, Message: "Purchase order updated successfully.", Data: purchaseActive{ID: q.ID, Active: *q.Active}}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docListPurchaseOrders = "The unit's purchase orders, optionally by `date_from` and `date_to` (on the estimated payment " +
		"date), `id_token_contact`, `category_id_token`, `id_token_project`, `search` (the supplier's name " +
		"or document, an item's description or code), `access_key`, `code`. Fields of the spec plus `status` " +
		"(`complete` from the NF-e's XML, `awaiting_xml` from its key alone), `estimatedPaymentDate` and " +
		"`keyInfo`. Money as decimal strings. 403 `Invalid data`, 500 `Erro desconhecido`."
	docSetPurchaseActive = "Enables or disables a purchase order (`id_token_purchase_order`, `active` required); answers `data: " +
		"{ok, message, data: {id, active}}` (spec). An order of another unit is 403 `Invalid data`."
	docGetPurchaseOrder = "One purchase order (`id_token`) with its items; another unit's is 403 `Invalid data`."
	docPurchaseByKey    = "Creates a purchase order from an NF-e access key (44 digits with a valid check digit, else 422 " +
		"`Invalid access key: …`), optional `category_id_token`, `id_token_project`. With the NF-e in the " +
		"inbox the order is filled from its XML (supplier, items, totals, freight, taxes, the first " +
		"installment's due date); else from what the key says. The supplier becomes a contact when the unit " +
		"has none with its document. The same key twice: 409 `A purchase order for this access key already " +
		"exists.`"
	docListNFes = "The inbox of NF-e issued to the unit's CNPJ, newest first: `[{token, access_key, supplier_cnpj, " +
		"supplier_name, issue_date, total_value, manifestation, manifested_at, justification, " +
		"id_purchase_order, created_date, summary, situation}]`. `summary` is true while only the national " +
		"environment's summary of the note (resNFe) is there: its full document replaces it once the unit's " +
		"ciência is registered. `situation` is the note's standing at its authority as the distribution said " +
		"it (`authorized`, `denied`, `cancelled` once a cancellation event came), null when it said nothing."
	docManifestNFe = "Records the recipient's manifestation on an NF-e of the inbox (`access_key` or `id_token`): " +
		"`ciencia` (optional, once, first), then one conclusive `event`: `confirmacao`, `desconhecimento` or " +
		"`nao_realizada` (with a `justification` of 15 to 255 characters). 409 `The NF-e already has a " +
		"conclusive manifestation.`, `Ciência da operação was already recorded.`; 404 `NF-e not found in the " +
		"unit's inbox.`."
	docImportNFe = "Puts an NF-e XML (multipart, one file) into the unit's inbox, standing in for the tax authority's " +
		"distribution service (also `fincom nfe import`): a readable NF-e with a valid key issued to the " +
		"unit's CNPJ (422 `The NF-e was not issued to this unit's CNPJ.`, `The file is not a readable NF-e " +
		"XML.`); the same key twice is 409 `This NF-e is already in the inbox.`. Outside test mode only an authorized note is taken: an " +
		"`nfeProc` with the protocol of its key (cStat 100 or 150) whose signature verifies with a non-test certificate of the issuer's " +
		"firm; else 422 naming the missing protocol or the failed signature (`details.reason`), and nothing is stored."
)

package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"

	"fincom/render"
	"fincom/server/access"
	"fincom/server/web"
	"fincom/store"
)

// The OpenAPI document is generated from the route table (routes.go):
// request schemas from the request structs the handlers decode (aliases
// included), response schemas from the Go types they return, error
// answers from the route's texts and errMap. Generating it keeps it true:
// a field added to a struct is documented the moment it exists, and the
// scenario tests validate every answer against it.

// answersJSON are the examples of the routes' answers, keyed "METHOD
// /path": what a test-mode server answered each route's request example,
// its arrays cut to two items (written by the server package's
// TestExamplesAnswer with -update, which holds them to the document).
//
//go:embed answers.json
var answersJSON []byte

// openAPIVersion is the document's own version, not the API's.
const openAPIVersion = "1.0.0"

// dataSchema documents what a handler returns in `data`.
func (g *schemaGen) dataSchema(v any) map[string]any {
	switch v := v.(type) {
	case nil:
		return map[string]any{"type": "null"}
	case web.Nullable:
		return orNull(g.dataSchema(v.V))
	case web.EitherOf:
		var list []any
		for _, x := range v {
			list = append(list, g.dataSchema(x))
		}
		return map[string]any{"oneOf": list}
	case web.OkData:
		return map[string]any{
			"type":                 "object",
			"required":             []string{"data", "message", "ok"},
			"additionalProperties": false,
			"properties": map[string]any{
				"ok":      map[string]any{"type": "boolean", "description": "true: the change was made."},
				"message": map[string]any{"type": "string", "description": "What was done, in the spec's words."},
				"data":    described(g.dataSchema(v.Data), "What the change left."),
			},
		}
	}
	t := reflect.TypeOf(v)
	s := g.schema(t, false)
	if t.Kind() == reflect.Slice {
		// Listings always answer an array, [] when empty.
		s["type"] = "array"
	}
	return s
}

// successSchema wraps data in the success envelope the handler's value
// selects (see successBody).
func (g *schemaGen) successSchema(v any) map[string]any {
	obj := func(props map[string]any) map[string]any {
		req := make([]string, 0, len(props))
		for k := range props {
			req = append(req, k)
		}
		sort.Strings(req)
		return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
	}
	success := map[string]any{"type": "boolean", "const": true, "description": "true: the request was done."}
	message := map[string]any{"type": "string", "description": "What was done, in the spec's words."}
	switch v := v.(type) {
	case web.TokenAnswer:
		return obj(map[string]any{"success": success, "message": message, "token": map[string]any{"type": "string", "description": "The new record's token."}})
	case web.WithMessage:
		return obj(map[string]any{"success": success, "message": message, "data": described(g.dataSchema(v.Data), "What the route answers.")})
	case web.Paged:
		return obj(map[string]any{"success": success, "data": described(g.dataSchema(v.Data), "This page's rows."),
			"page":      map[string]any{"type": "integer", "minimum": 1, "description": "The page answered, from 1."},
			"page_size": map[string]any{"type": "integer", "minimum": 1, "maximum": web.MaxPageSize, "description": "Rows a page."},
			"total":     map[string]any{"type": "integer", "minimum": 0, "description": "Rows the whole listing holds (every page)."}})
	}
	return obj(map[string]any{"success": success, "data": described(g.dataSchema(v), "What the route answers.")})
}

// described gives an answer's property its words, unless it is a
// reference: the component it names says what it holds, and wrapping the
// reference to carry words would retype it in generated clients.
func described(s map[string]any, d string) map[string]any {
	if _, ref := s["$ref"]; ref {
		return s
	}
	if _, has := s["description"]; has {
		return s
	}
	return withDescription(s, d)
}

// errorSchema refers to the failure envelope of a route's envelope and
// status (see errorStatusBody).
func errorSchema(env web.Envelope, status int) map[string]any {
	name := "Error"
	switch {
	case env == web.EnvMessage && status >= 500:
		name = "ErrorWithData"
	case env == web.EnvMessage:
		name = "ErrorMessage"
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// errorEnvelopes are the components errorSchema refers to.
func errorEnvelopes(c map[string]any) {
	c["Error"] = errorEnvelope(web.EnvDirect, 400)
	c["ErrorWithData"] = errorEnvelope(web.EnvMessage, 500)
	c["ErrorMessage"] = errorEnvelope(web.EnvMessage, 400)
}

func errorEnvelope(env web.Envelope, status int) map[string]any {
	props := map[string]any{"success": map[string]any{"type": "boolean", "const": false, "description": "false: the request was refused or failed."}}
	req := []string{"success"}
	switch {
	case env == web.EnvMessage && status >= 500:
		props["error"] = map[string]any{"type": "string", "description": "The failure's text, as the route gives it."}
		props["data"] = map[string]any{"type": "null", "description": "Always null."}
		req = append(req, "data", "error")
	case env == web.EnvMessage:
		props["message"] = map[string]any{"type": "string", "description": "The refusal's text, one its status lists."}
		props["data"] = map[string]any{"type": "null", "description": "Always null."}
		req = append(req, "data", "message")
	default:
		props["error"] = map[string]any{"type": "string", "description": "The refusal's text, one its status lists (x-fincom-texts)."}
		props["details"] = map[string]any{"description": "Which fields failed, where the route names them."}
		req = append(req, "error")
	}
	sort.Strings(req)
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// authSchemaNames name the components of the token fields of each auth
// kind.
var authSchemaNames = map[web.AuthKind]string{
	web.AuthUnit:        "UnitAuth",
	web.AuthUnits:       "UnitsAuth",
	web.AuthTecOrAccess: "TecOrAccessAuth",
	web.AuthDomain:      "DomainAuth",
}

// tokenProps are the body fields a route's auth kind reads.
func tokenProps(a web.AuthKind) (map[string]any, []string) {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	access := str("The domain's access token.")
	unit := str("The unit's token.")
	switch a {
	case web.AuthUnit:
		return map[string]any{"access_token": access, "unit_token": unit}, []string{"access_token", "unit_token"}
	case web.AuthUnits:
		return map[string]any{"access_token": access, "unit_token": unit,
			"unit_tokens": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Several units of the domain, instead of unit_token."}}, []string{"access_token"}
	case web.AuthTecOrAccess:
		return map[string]any{"access_token": access, "unit_token": unit, "token_tec": str("The technical token, instead of access_token.")}, []string{"unit_token"}
	case web.AuthDomain:
		return map[string]any{"access_token": access}, []string{"access_token"}
	}
	return map[string]any{}, nil
}

// Document builds the OpenAPI document of routes.
func Document(routes []web.Route) ([]byte, error) {
	g := &schemaGen{components: map[string]any{}, names: map[refKey]string{}, taken: map[string]refKey{}}
	if err := json.Unmarshal(answersJSON, &g.answers); err != nil {
		return nil, fmt.Errorf("openapi: answers.json: %w", err)
	}
	paths := map[string]any{}
	tags := map[string]bool{}
	for i := range routes {
		rt := &routes[i]
		d := rt.Doc
		if d.Tag == "" || d.Summary == "" || (d.Resp == nil && d.Raw == "") {
			return nil, fmt.Errorf("openapi: route %s %s has no doc", rt.MethodOf(), rt.Path)
		}
		tags[d.Tag] = true
		op := map[string]any{
			"operationId": operationID(rt.Path),
			"summary":     d.Summary,
			"tags":        []string{d.Tag},
			"security":    []any{},
			"responses":   g.responses(rt, d),
		}
		desc := d.Desc
		if strings.HasPrefix(rt.Path, "/_test/") {
			desc = strings.TrimSpace(desc + "\n\nOnly with `fincom serve --test-mode` (404 otherwise).")
		}
		if _, paged := d.Resp.(web.Paged); paged {
			desc = strings.TrimSpace(desc + fmt.Sprintf("\n\nPaged: `page` (from 1) and `page_size` (1 to %d, default %d); the answer gives "+
				"`page`, `page_size` and `total`, the rows of every page.", web.MaxPageSize, web.DefaultPageSize))
		}
		if roles := writeRoles(rt); roles != nil {
			op["x-fincom-roles"] = roles
			desc = strings.TrimSpace(desc + "\n\nChanges " + string(rt.AreaOf()) + ": a token of a user whose role on the unit is none of " +
				strings.Join(roles, ", ") + " is refused with 403 (details: reason, role, area, unit_token).")
		}
		if desc != "" {
			op["description"] = desc
		}
		var params []any
		for _, seg := range strings.Split(rt.Path, "/") {
			if strings.HasPrefix(seg, ":") {
				desc := "The sales order's public token."
				if seg == ":secret" {
					desc = "The secret part of the unit's PSP webhook address (fincom unit psp shows it)."
				}
				param := map[string]any{"name": seg[1:], "in": "path", "required": true,
					"description": desc, "schema": map[string]any{"type": "string"}}
				if d.ExampleParam != "" {
					param["example"] = d.ExampleParam
				}
				params = append(params, param)
			}
		}
		for _, q := range rt.Query {
			params = append(params, map[string]any{"name": q.Name, "in": "query", "required": false,
				"description": q.Doc, "schema": map[string]any{"type": "integer", "minimum": 1}})
		}
		if params != nil {
			op["parameters"] = params
		}
		if rt.MethodOf() == http.MethodPost {
			op["requestBody"] = g.requestBody(rt)
		}
		p := OpenAPIPath(rt.Path)
		item, _ := paths[p].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[p] = item
		}
		item[strings.ToLower(rt.MethodOf())] = op
	}
	paths["/health"] = map[string]any{"get": map[string]any{
		"operationId": "health", "summary": "Liveness: the version, whether the data directory is writable, the worst replica's lag.",
		"description": "Needs no token. 200 while serving; 503 with the same data when the data directory cannot be written. HEAD answers the status alone. " +
			"With the technical token (`fincom token tec`) as `Authorization: Bearer …`, it also answers how many domains are open and each file's replica; " +
			"an Authorization that is not that token is refused (401).",
		"tags": []string{"Operations"}, "security": []any{},
		"parameters": []any{map[string]any{"name": "Authorization", "in": "header", "required": false,
			"description": "`Bearer` and the technical token, for the open domains and each file's replica.", "schema": map[string]any{"type": "string"}}},
		"responses": map[string]any{
			"401": map[string]any{"description": "The Authorization is not the technical token: `" + web.TextHealthToken + "`",
				"x-fincom-texts": []string{web.TextHealthToken},
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
					"type": "object", "required": []string{"error", "success"}, "additionalProperties": false,
					"properties": map[string]any{"success": map[string]any{"type": "boolean", "const": false, "description": "false."},
						"error": map[string]any{"type": "string", "description": "Why."}},
				}}}},
			"200": map[string]any{"description": "Serving.", "content": map[string]any{"application/json": map[string]any{"schema": g.successSchema(web.HealthData{})}}},
			"503": map[string]any{"description": "The data directory is not writable (success false, the same data).", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
				"type": "object", "required": []string{"data", "success"}, "additionalProperties": false,
				"properties": map[string]any{"success": map[string]any{"type": "boolean", "const": false, "description": "false: not serving."}, "data": described(g.schema(reflect.TypeOf(web.HealthData{}), false), "The same data as the 200's.")},
			}}}},
		},
	}}
	paths["/docs"] = map[string]any{"get": map[string]any{
		"operationId": "docs", "summary": "This document as an HTML reference.", "tags": []string{"Operations"}, "security": []any{},
		"description": "Every operation with its fields, answers and schemas, drawn on the server from this document: no script, nothing loaded from elsewhere, readable offline.",
		"responses": map[string]any{"200": map[string]any{"description": "The reference page.",
			"content": map[string]any{"text/html": map[string]any{"schema": map[string]any{"type": "string"}}}}},
	}}
	paths["/openapi.json"] = map[string]any{"get": map[string]any{
		"operationId": "openapi", "summary": "This document.",
		"description": "The OpenAPI 3.1 document of this server, generated from its route table: every route, its fields, answers and error texts. Test-mode routes are listed only when the server runs in test mode.", "tags": []string{"Operations"}, "security": []any{},
		"responses": map[string]any{"200": map[string]any{"description": "The OpenAPI document.",
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}}},
	}}
	// Go's HTTP server answers a malformed request 400 before any route.
	for _, p := range []string{"/health", "/openapi.json", "/docs"} {
		p := paths[p].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)
		p["4XX"] = map[string]any{"description": "A malformed HTTP request (plain text, from the HTTP server).",
			"content": map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}}
	}
	tags["Operations"] = true
	errorEnvelopes(g.components)
	if g.err != nil {
		return nil, g.err
	}
	var tagList []any
	names := make([]string, 0, len(tags))
	for t := range tags {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		tagList = append(tagList, map[string]any{"name": t, "description": tagDescriptions[t]})
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "fincom API",
			"version":     openAPIVersion,
			"summary":     "Finance and sales back end for Brazilian small firms.",
			"description": "Every route is under /api/v1. Private routes take their tokens in the body (access_token and unit_token), not in headers. Amounts are exact decimals; errors carry the texts of the interface specification byte for byte. Each error status of a route lists every text it answers, in its description and in x-fincom-texts; in a text, {field} stands for the name of the field refused as it was sent (dotted below its group, as pv.value, indexed in a list, as pv.products[0].quantity). A 4XX beside them is only the envelope's shape.",
			"license":     map[string]any{"name": "Proprietary", "identifier": "LicenseRef-fincom"},
			"contact":     map[string]any{"name": "fincom", "url": "https://fincom.dev/"},
		},
		"servers":    []any{map[string]any{"url": web.Prefix, "description": "The fincom serving this document."}},
		"tags":       tagList,
		"paths":      paths,
		"components": map[string]any{"schemas": g.components},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var tagDescriptions = map[string]string{
	"Finance":    "Expenses, income, their files, transactions and cash flow.",
	"Documents":  "Reading fiscal documents and boletos; the screening inbox.",
	"Sales":      "Sales orders, charges (boleto, PIX, card) and fiscal invoices.",
	"Portal":     "The public payment portal: pages and actions reached with an order's public token.",
	"Purchases":  "Purchase orders and the inbox of received NF-e.",
	"Contracts":  "Contracts, their files, templates and previews.",
	"Webhooks":   "Outbound webhooks, their delivery log, and the audit log.",
	"CRM":        "Customer relationship records.",
	"Inventory":  "Inventory movements, reports and stock balances.",
	"Registers":  "Products, contacts, categories, projects, banks, bank accounts, payment methods and users.",
	"Test mode":  "Routes for integrators' test suites; they exist only in test mode.",
	"Operations": "Health and this document.",
}

func (g *schemaGen) requestBody(rt *web.Route) map[string]any {
	var parts []any
	if name := authSchemaNames[rt.Auth]; name != "" {
		if _, ok := g.components[name]; !ok {
			props, required := tokenProps(rt.Auth)
			g.components[name] = map[string]any{"type": "object", "properties": props, "required": required}
		}
		parts = append(parts, map[string]any{"$ref": "#/components/schemas/" + name})
	}
	// What only this route needs of a struct other routes share (an
	// insert's fields, optional in its update) makes the route's body a
	// schema of its own: those fields required and never null (the decoder
	// reads null as missing). A field below a group is told in the route's
	// description, since the group may come flat.
	var need []string
	for _, n := range rt.Need {
		if !strings.Contains(n, ".") {
			need = append(need, n)
		}
	}
	switch {
	case rt.Do.Req != nil && need != nil:
		body := g.object(rt.Do.Req, true)
		props := body["properties"].(map[string]any)
		required, _ := body["required"].([]string)
		for _, n := range need {
			if p, ok := props[n].(map[string]any); ok {
				props[n] = requiredField(p)
			}
			if !slices.Contains(required, n) {
				required = append(required, n)
			}
		}
		sort.Strings(required)
		body["required"] = required
		parts = append(parts, body)
	case rt.Do.Req != nil:
		parts = append(parts, g.ref(rt.Do.Req, true))
	case need != nil:
		parts = append(parts, map[string]any{"required": need})
	}
	var body map[string]any
	switch len(parts) {
	case 0:
		body = map[string]any{"type": "object"}
	case 1:
		body = parts[0].(map[string]any)
	default:
		body = map[string]any{"allOf": parts}
	}
	media := map[string]any{"schema": body}
	if rt.Doc.Example != "" && rt.Doc.ExampleFile == "" {
		media["example"] = json.RawMessage(rt.Doc.Example)
	}
	content := map[string]any{"application/json": media}
	if rt.Doc.Multipart {
		form := map[string]any{"schema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"metadata": map[string]any{"type": "string", "contentMediaType": "application/json", "description": "The JSON body above, as one part."},
				"files": map[string]any{"type": "array", "description": "The files, each a part named files with its file name.",
					"items": map[string]any{"type": "string", "contentMediaType": "application/octet-stream"}},
			},
		}}
		if rt.Doc.ExampleFile != "" {
			form["example"] = map[string]any{"metadata": rt.Doc.Example, "files": []string{rt.Doc.ExampleFile}}
		}
		content["multipart/form-data"] = form
	}
	return map[string]any{"required": rt.Auth != web.AuthPublic, "content": content}
}

func (g *schemaGen) responses(rt *web.Route, d web.Doc) map[string]any {
	out := map[string]any{}
	if d.Raw != "" {
		doc := map[string]any{}
		for _, t := range strings.Split(d.Raw, ",") {
			sch := map[string]any{"type": "string"}
			if !strings.HasPrefix(t, "text/") && t != "application/xml" {
				sch["format"] = "binary"
			}
			doc[t] = map[string]any{"schema": sch}
		}
		out["200"] = map[string]any{"description": "The document.", "content": doc}
		if rt.Auth == web.AuthPublic {
			page := map[string]any{"text/html": map[string]any{"schema": map[string]any{"type": "string"}}}
			for status, list := range routeTexts(rt, false) {
				out[fmt.Sprint(status)] = map[string]any{"description": "An HTML page saying " + quoteAll(list) + ".", "content": page}
			}
			if out["404"] == nil {
				out["404"] = map[string]any{"description": "Unknown or expired public token: an HTML page.", "content": page}
			}
			if rt.Query != nil {
				out["400"] = map[string]any{"description": "A query parameter that is not a whole number from 1: an HTML page.", "content": page}
			}
			out["429"] = map[string]any{"description": "Too many requests from this address: an HTML page.", "content": page}
			return out
		}
		// A private document route fails as every private route does.
	} else {
		media := map[string]any{"schema": g.successSchema(d.Resp)}
		if d.RespExample != "" {
			media["example"] = json.RawMessage(d.RespExample)
		} else if a, ok := g.answers[rt.MethodOf()+" "+rt.Path]; ok {
			media["example"] = a
		}
		out["200"] = map[string]any{"description": "Success.", "content": map[string]any{"application/json": media}}
	}
	// Route-specific failures share the 4XX envelope.
	for status, list := range routeTexts(rt, rt.Auth != web.AuthPublic) {
		out[fmt.Sprint(status)] = map[string]any{
			"description":    "Texts: " + quoteAll(list) + ".",
			"x-fincom-texts": list,
			"content":        map[string]any{"application/json": map[string]any{"schema": errorSchema(rt.Envelope, status)}},
		}
	}
	out["4XX"] = map[string]any{"description": "The envelope of any refusal (the route's own statuses and texts are listed beside it).",
		"content": map[string]any{"application/json": map[string]any{"schema": errorSchema(rt.Envelope, 400)}}}
	out["5XX"] = map[string]any{"description": "Internal failure: " + quoteAll([]string{rt.Texts.Internal}) + "; the cause is only logged.",
		"content": map[string]any{"application/json": map[string]any{"schema": errorSchema(rt.Envelope, 500)}}}
	return out
}

// routeTexts are the texts the route table gives a route, by status: its
// error map's, and with tokens its tokens' and body's too (a public route
// reads no token, and its body's limits are the 4XX's).
func routeTexts(rt *web.Route, tokens bool) map[int][]string {
	byStatus := map[int][]string{}
	var known []*web.Error
	if tokens {
		known = append(known, rt.Texts.Missing, rt.Texts.Invalid, rt.Texts.Unit, rt.Texts.Format)
	} else {
		if rt.Do.Req != nil {
			// A public route's body is decoded as every route's is.
			known = append(known, rt.Texts.Missing, rt.Texts.Format)
		}
		// and read within the same limits.
		known = append(known, rt.BodyErrors()...)
	}
	for _, m := range rt.Errs {
		known = append(known, m.To)
	}
	if tokens {
		known = append(known, rt.BodyErrors()...)
	}
	known = append(known, rt.FieldErrors()...)
	for _, e := range known {
		if e != nil && !slices.Contains(byStatus[web.StatusOf(e)], e.Text) {
			byStatus[web.StatusOf(e)] = append(byStatus[web.StatusOf(e)], e.Text)
		}
	}
	return byStatus
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}

// operationID names an operation after its path: /get_contacts ->
// get_contacts, /sales_orders/public_pay -> public_pay.
func operationID(path string) string {
	if path == "/" {
		return "transactions_legacy"
	}
	var keep []string
	for _, seg := range strings.Split(strings.Trim(path, "/"), "/") {
		if seg != "" && !strings.HasPrefix(seg, ":") && seg != "sales_orders" {
			keep = append(keep, seg)
		}
	}
	return strings.Join(keep, "_")
}

// OpenAPIPath writes httprouter's :param as {param}.
func OpenAPIPath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// Reference draws the HTML reference of the document (render.APIDocs).
func Reference(r *render.Renderer, doc []byte) ([]byte, error) {
	d, err := render.ReadAPIDocs(doc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := r.APIReference(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeRoles are the roles whose tokens may call a write route on a unit,
// nil for a route that is not one.
func writeRoles(rt *web.Route) []string {
	if !rt.Write || (rt.Auth != web.AuthUnit && rt.Auth != web.AuthUnits && rt.Auth != web.AuthTecOrAccess) {
		return nil
	}
	var out []string
	for _, r := range store.Roles {
		if access.May(r, rt.AreaOf()) {
			out = append(out, string(r))
		}
	}
	return out
}

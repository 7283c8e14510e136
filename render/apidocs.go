package render

import (
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"io"
	"slices"
	"sort"
	"strings"
)

// The API reference (GET /api/v1/docs) is drawn on the server from the
// OpenAPI document, with no script and nothing fetched from elsewhere: an
// operator reads it offline, and it says what the document says.

// APIDocs is the reference page's content.
type APIDocs struct {
	Title, Version, Description string
	Tags                        []DocTag
	Schemas                     []DocSchema
}

// DocTag is a resource and its operations.
type DocTag struct {
	Name, Description string
	Ops               []DocOp
}

// DocOp is one operation.
type DocOp struct {
	Anchor, Method, Path, Summary string
	Description                   htmltemplate.HTML
	Params, Body                  []DocField
	Multipart                     bool
	Responses                     []DocResponse
}

// DocField is one field of a request body, a query or path parameter, or
// a schema.
type DocField struct {
	Name, Type, Link string
	Required         bool
	Description      htmltemplate.HTML
	Enum             []string
}

// DocResponse is one answer of an operation.
type DocResponse struct {
	Status, Type, Link string
	Description        htmltemplate.HTML
}

// DocSchema is a named schema of the document's components.
type DocSchema struct {
	Name        string
	Description htmltemplate.HTML
	Fields      []DocField
	Type        string
}

// jsonSchema is the part of a JSON Schema the reference reads.
type jsonSchema struct {
	Ref         string                 `json:"$ref"`
	Type        any                    `json:"type"`
	Format      string                 `json:"format"`
	Pattern     string                 `json:"pattern"`
	Description string                 `json:"description"`
	Enum        []any                  `json:"enum"`
	Const       any                    `json:"const"`
	Items       *jsonSchema            `json:"items"`
	Properties  map[string]*jsonSchema `json:"properties"`
	Required    []string               `json:"required"`
	AllOf       []*jsonSchema          `json:"allOf"`
	AnyOf       []*jsonSchema          `json:"anyOf"`
	OneOf       []*jsonSchema          `json:"oneOf"`
	Additional  any                    `json:"additionalProperties"`
}

type openAPIDoc struct {
	Info struct {
		Title, Version, Description string
	}
	Tags []struct {
		Name, Description string
	}
	Paths      map[string]map[string]openAPIOp
	Components struct {
		Schemas map[string]*jsonSchema
	}
}

type openAPIOp struct {
	OperationID string   `json:"operationId"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Parameters  []struct {
		Name, In, Description string
		Required              bool
		Schema                *jsonSchema
	} `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema *jsonSchema `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Description string `json:"description"`
		Content     map[string]struct {
			Schema *jsonSchema `json:"schema"`
		} `json:"content"`
	} `json:"responses"`
}

// ReadAPIDocs turns an OpenAPI 3.1 document into the reference's content.
func ReadAPIDocs(document []byte) (APIDocs, error) {
	var d openAPIDoc
	if err := json.Unmarshal(document, &d); err != nil {
		return APIDocs{}, fmt.Errorf("api docs: %w", err)
	}
	out := APIDocs{Title: d.Info.Title, Version: d.Info.Version, Description: d.Info.Description}
	byTag := map[string]*DocTag{}
	for _, t := range d.Tags {
		out.Tags = append(out.Tags, DocTag{Name: t.Name, Description: t.Description})
	}
	for i := range out.Tags {
		byTag[out.Tags[i].Name] = &out.Tags[i]
	}
	paths := make([]string, 0, len(d.Paths))
	for p := range d.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		methods := make([]string, 0, len(d.Paths[p]))
		for m := range d.Paths[p] {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			op := d.Paths[p][m]
			v := DocOp{Anchor: "op-" + op.OperationID, Method: strings.ToUpper(m), Path: p, Summary: op.Summary,
				Description: prose(op.Description)}
			for _, prm := range op.Parameters {
				f := field(prm.Name, prm.Schema, prm.Required)
				f.Description = prose(prm.In + " parameter. " + prm.Description)
				v.Params = append(v.Params, f)
			}
			if op.RequestBody != nil {
				if c, ok := op.RequestBody.Content["application/json"]; ok {
					v.Body = fields(c.Schema, d.Components.Schemas)
				}
				_, v.Multipart = op.RequestBody.Content["multipart/form-data"]
			}
			statuses := make([]string, 0, len(op.Responses))
			for st := range op.Responses {
				statuses = append(statuses, st)
			}
			sort.Strings(statuses)
			for _, st := range statuses {
				r := op.Responses[st]
				resp := DocResponse{Status: st, Description: prose(r.Description)}
				for ct, c := range r.Content {
					if ct == "application/json" && c.Schema != nil {
						resp.Type, resp.Link = typeName(c.Schema)
					} else if resp.Type == "" {
						resp.Type = ct
					}
				}
				v.Responses = append(v.Responses, resp)
			}
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			if byTag[tag] == nil {
				out.Tags = append(out.Tags, DocTag{Name: tag})
				byTag = map[string]*DocTag{}
				for i := range out.Tags {
					byTag[out.Tags[i].Name] = &out.Tags[i]
				}
			}
			byTag[tag].Ops = append(byTag[tag].Ops, v)
		}
	}
	names := make([]string, 0, len(d.Components.Schemas))
	for n := range d.Components.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := d.Components.Schemas[n]
		ds := DocSchema{Name: n, Description: prose(s.Description), Fields: fields(s, d.Components.Schemas)}
		if len(ds.Fields) == 0 {
			ds.Type, _ = typeName(s)
		}
		out.Schemas = append(out.Schemas, ds)
	}
	return out, nil
}

// fields lists an object schema's properties, through allOf and $ref
// (a request body is its tokens' schema and its fields' schema).
func fields(s *jsonSchema, components map[string]*jsonSchema) []DocField {
	if s == nil {
		return nil
	}
	var out []DocField
	required := map[string]bool{}
	var walk func(s *jsonSchema, depth int)
	walk = func(s *jsonSchema, depth int) {
		if s == nil || depth > 8 {
			return
		}
		if s.Ref != "" {
			walk(components[strings.TrimPrefix(s.Ref, "#/components/schemas/")], depth+1)
			return
		}
		for _, r := range s.Required {
			required[r] = true
		}
		for _, part := range s.AllOf {
			walk(part, depth+1)
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, field(n, s.Properties[n], false))
		}
	}
	walk(s, 0)
	for i := range out {
		out[i].Required = out[i].Required || required[out[i].Name]
	}
	return out
}

func field(name string, s *jsonSchema, required bool) DocField {
	f := DocField{Name: name, Required: required}
	if s == nil {
		return f
	}
	f.Type, f.Link = typeName(s)
	desc := s.Description
	if desc == "" {
		for _, part := range append(append(s.AllOf, s.AnyOf...), s.OneOf...) {
			if part.Description != "" {
				desc = part.Description
			}
		}
	}
	if s.Pattern != "" {
		desc = strings.TrimSpace(desc + " Pattern `" + s.Pattern + "`.")
	}
	f.Description = prose(desc)
	for _, e := range s.Enum {
		if e != nil {
			f.Enum = append(f.Enum, fmt.Sprint(e))
		}
	}
	for _, part := range s.OneOf {
		for _, e := range part.Enum {
			if v := fmt.Sprint(e); e != nil && !slices.Contains(f.Enum, v) {
				f.Enum = append(f.Enum, v)
			}
		}
	}
	return f
}

// typeName writes a schema's type as the reference shows it, and the
// anchor of the named schema it refers to.
func typeName(s *jsonSchema) (name, link string) {
	switch {
	case s == nil:
		return "any", ""
	case s.Ref != "":
		n := strings.TrimPrefix(s.Ref, "#/components/schemas/")
		return n, "schema-" + n
	case s.Const != nil:
		return fmt.Sprintf("%v", s.Const), ""
	case len(s.AllOf) == 1:
		return typeName(s.AllOf[0])
	}
	for _, alts := range [][]*jsonSchema{s.AnyOf, s.OneOf} {
		if len(alts) == 0 {
			continue
		}
		var parts []string
		for _, a := range alts {
			n, l := typeName(a)
			if l != "" {
				link = l
			}
			parts = append(parts, n)
		}
		return strings.Join(parts, " | "), link
	}
	var types []string
	switch t := s.Type.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, v := range t {
			types = append(types, fmt.Sprint(v))
		}
	}
	for i, t := range types {
		switch {
		case t == "array" && s.Items != nil:
			n, l := typeName(s.Items)
			types[i], link = "array of "+n, l
		case t != "null" && s.Format != "":
			types[i] = t + " (" + s.Format + ")"
		}
	}
	if len(s.Properties) > 0 && (len(types) == 0 || types[0] == "object") {
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for i, n := range names {
			t, l := typeName(s.Properties[n])
			if l != "" && link == "" {
				link = l
			}
			names[i] = n + ": " + t
		}
		return "{" + strings.Join(names, ", ") + "}", link
	}
	if len(types) == 0 {
		return "any", ""
	}
	return strings.Join(types, " | "), link
}

// prose writes a description: escaped text whose `code` spans become code
// elements.
func prose(s string) htmltemplate.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		text := htmltemplate.HTMLEscapeString(part)
		if i%2 == 1 {
			b.WriteString("<code>" + text + "</code>")
			continue
		}
		b.WriteString(strings.ReplaceAll(text, "\n\n", "<br><br>"))
	}
	return htmltemplate.HTML(b.String())
}

// APIReference draws the reference page.
func (r *Renderer) APIReference(w io.Writer, d APIDocs) error {
	return r.pages.ExecuteTemplate(w, "apidocs.html", d)
}

// Package xsd validates XML documents against W3C XML Schemas, in the
// subset the fiscal layouts use: global and local elements, references,
// sequences and choices with occurrence bounds, attributes (required,
// fixed), simple content, simple types restricted by enumeration,
// pattern, length, minLength, maxLength and whiteSpace over the built-in
// string, token, base64Binary, anyURI, ID, decimal and date types, and unique
// constraints on an attribute of the children. A schema using anything
// else is refused when it is loaded, never silently half-checked.
//
// It stands in for the tax authority's schema check (Falha no Schema XML)
// inside the binary, where no C library may run; the tests hold its
// verdicts to xmllint's on every document fincom issues and on documents
// broken on purpose (TestAgreesWithXmllint).
package xsd

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

const xsdNS = "http://www.w3.org/2001/XMLSchema"

type qname struct{ space, local string }

// node is an element of a parsed document: its name, attributes, the
// namespace prefixes in scope (for QName values), children and text.
type node struct {
	name  qname
	attrs []xml.Attr
	scope map[string]string
	kids  []*node
	text  strings.Builder
	line  int
}

func (n *node) attr(local string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Space == "" && a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// parse reads a document into nodes, keeping each element's in-scope
// prefixes.
func parse(r io.Reader) (*node, error) {
	dec := xml.NewDecoder(r)
	var stack []*node
	var root *node
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{scope: map[string]string{}}
			if len(stack) > 0 {
				for k, v := range stack[len(stack)-1].scope {
					n.scope[k] = v
				}
			}
			line, _ := dec.InputPos()
			n.line = line
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns":
					n.scope[a.Name.Local] = a.Value
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					n.scope[""] = a.Value
				default:
					n.attrs = append(n.attrs, a)
				}
			}
			space, ok := n.scope[t.Name.Space]
			if !ok && t.Name.Space != "" {
				return nil, fmt.Errorf("line %d: unknown prefix %q", line, t.Name.Space)
			}
			n.name = qname{space, t.Name.Local}
			for i, a := range n.attrs {
				if a.Name.Space != "" {
					if a.Name.Space == "xml" {
						n.attrs[i].Name.Space = "http://www.w3.org/XML/1998/namespace"
						continue
					}
					s, ok := n.scope[a.Name.Space]
					if !ok {
						return nil, fmt.Errorf("line %d: unknown prefix %q", line, a.Name.Space)
					}
					n.attrs[i].Name.Space = s
				}
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			} else if root == nil {
				root = n
			} else {
				return nil, errors.New("more than one root element")
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, errors.New("unbalanced end element")
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			} else if strings.TrimSpace(strings.TrimPrefix(string(t), "\ufeff")) != "" {
				return nil, errors.New("text outside the root element")
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	if len(stack) != 0 {
		return nil, errors.New("unclosed element")
	}
	return root, nil
}

// resolve reads a QName value in the scope of the node that holds it.
func (n *node) resolve(v string) (qname, error) {
	prefix, local, ok := strings.Cut(v, ":")
	if !ok {
		prefix, local = "", v
	}
	space, found := n.scope[prefix]
	if !found && prefix != "" {
		return qname{}, fmt.Errorf("unknown prefix in %q", v)
	}
	return qname{space, local}, nil
}

// Schema is a loaded set of schema documents.
type Schema struct {
	elements map[qname]*element
}

type element struct {
	name     qname
	typ      *typeDef
	min, max int // max -1: unbounded
	uniques  []string
	// wildcard is an xs:any: any element, its content not checked
	// (processContents skip, and lax taken as skip); strict, an element
	// the schema declares globally (of globals, the loader's, complete
	// and only read once it has loaded), validated by that declaration.
	wildcard bool
	strict   bool
	globals  map[qname]*element
}

type typeDef struct {
	simple  *simpleType
	complex *complexType
}

type complexType struct {
	content *group // nil: empty or simple content
	text    *simpleType
	attrs   []*attribute
	// anyAttrs: xs:anyAttribute, any attribute taken unchecked.
	anyAttrs bool
}

type group struct {
	choice   bool
	min, max int
	items    []particle
}

type particle struct {
	elem  *element
	group *group
}

type attribute struct {
	name     string
	typ      *simpleType
	required bool
	fixed    *string
}

type simpleType struct {
	base     *simpleType
	builtin  string
	enums    []string
	patterns []*regexp.Regexp
	length   int
	minLen   int
	maxLen   int
	ws       string
}

// loader reads schema documents and builds their components once.
type loader struct {
	fsys     fs.FS
	loaded   map[string]bool
	types    map[qname]*node // named type definitions
	elems    map[qname]*node // global element declarations
	built    map[*node]*typeDef
	globals  map[qname]*element
	builtins map[string]*simpleType
}

// Load reads the schema document at name in fsys, with what it includes
// and imports (schemaLocation relative to it).
func Load(fsys fs.FS, name string) (*Schema, error) {
	l := &loader{fsys: fsys, loaded: map[string]bool{}, types: map[qname]*node{}, elems: map[qname]*node{},
		built: map[*node]*typeDef{}, globals: map[qname]*element{}, builtins: map[string]*simpleType{}}
	if err := l.read(name, ""); err != nil {
		return nil, err
	}
	s := &Schema{elements: map[qname]*element{}}
	for q := range l.elems {
		e, err := l.global(q)
		if err != nil {
			return nil, err
		}
		s.elements[q] = e
	}
	return s, nil
}

// read loads a schema document. chameleon is the namespace of the schema
// including it: a document without a targetNamespace takes it, its
// unprefixed references with it (a chameleon include, as the reform's
// DFeTiposBasicos is included into the NF-e's namespace).
func (l *loader) read(name, chameleon string) error {
	name = path.Clean(name)
	if l.loaded[name] {
		return nil
	}
	l.loaded[name] = true
	f, err := l.fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	root, err := parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if root.name != (qname{xsdNS, "schema"}) {
		return fmt.Errorf("%s: not a schema", name)
	}
	target, declared := root.attr("targetNamespace")
	adopted := !declared && chameleon != ""
	if adopted {
		target = chameleon
	}
	var mark func(n *node)
	mark = func(n *node) {
		n.scope["\x00target"] = target
		if _, ok := n.scope[""]; adopted && !ok {
			n.scope[""] = target
		}
		for _, k := range n.kids {
			mark(k)
		}
	}
	mark(root)
	if v, _ := root.attr("elementFormDefault"); v != "qualified" {
		return fmt.Errorf("%s: only elementFormDefault=\"qualified\" schemas are read", name)
	}
	for _, c := range root.kids {
		if c.name.space != xsdNS {
			continue
		}
		switch c.name.local {
		case "include", "import":
			loc, ok := c.attr("schemaLocation")
			if !ok {
				return fmt.Errorf("%s: %s without schemaLocation", name, c.name.local)
			}
			into := ""
			if c.name.local == "include" {
				into = target
			}
			if err := l.read(path.Join(path.Dir(name), loc), into); err != nil {
				return err
			}
		case "element":
			n, _ := c.attr("name")
			l.elems[qname{target, n}] = c
		case "complexType", "simpleType":
			n, _ := c.attr("name")
			l.types[qname{target, n}] = c
		case "annotation":
		default:
			return fmt.Errorf("%s: xs:%s is not supported", name, c.name.local)
		}
	}
	return nil
}

// target is the target namespace of the schema document a node is in.
func target(n *node) string { return n.scope["\x00target"] }

func (l *loader) global(q qname) (*element, error) {
	if e, ok := l.globals[q]; ok {
		return e, nil
	}
	n, ok := l.elems[q]
	if !ok {
		return nil, fmt.Errorf("no global element %s", q.local)
	}
	e := &element{name: q, min: 1, max: 1}
	l.globals[q] = e
	if err := l.fillElement(e, n); err != nil {
		return nil, err
	}
	return e, nil
}

func occurs(n *node) (int, int, error) {
	min, max := 1, 1
	if v, ok := n.attr("minOccurs"); ok {
		if _, err := fmt.Sscan(v, &min); err != nil {
			return 0, 0, err
		}
	}
	if v, ok := n.attr("maxOccurs"); ok {
		if v == "unbounded" {
			max = -1
		} else if _, err := fmt.Sscan(v, &max); err != nil {
			return 0, 0, err
		}
	}
	return min, max, nil
}

// fillElement reads an element declaration's type and constraints.
func (l *loader) fillElement(e *element, n *node) error {
	if t, ok := n.attr("type"); ok {
		q, err := n.resolve(t)
		if err != nil {
			return err
		}
		if e.typ, err = l.named(q); err != nil {
			return err
		}
	}
	for _, c := range n.kids {
		if c.name.space != xsdNS {
			continue
		}
		switch c.name.local {
		case "complexType":
			ct, err := l.complex(c)
			if err != nil {
				return err
			}
			e.typ = &typeDef{complex: ct}
		case "simpleType":
			st, err := l.simple(c)
			if err != nil {
				return err
			}
			e.typ = &typeDef{simple: st}
		case "unique":
			sel, field := "", ""
			for _, k := range c.kids {
				switch k.name.local {
				case "selector":
					sel, _ = k.attr("xpath")
				case "field":
					field, _ = k.attr("xpath")
				}
			}
			if sel != "./*" || !strings.HasPrefix(field, "@") {
				return fmt.Errorf("unique %q/%q is not supported", sel, field)
			}
			e.uniques = append(e.uniques, field[1:])
		case "annotation":
		default:
			return fmt.Errorf("xs:%s in an element is not supported", c.name.local)
		}
	}
	return nil
}

// named builds a named type (built-in or declared) once.
func (l *loader) named(q qname) (*typeDef, error) {
	if q.space == xsdNS {
		st, err := l.builtin(q.local)
		return &typeDef{simple: st}, err
	}
	n, ok := l.types[q]
	if !ok {
		return nil, fmt.Errorf("no type %s", q.local)
	}
	if t, ok := l.built[n]; ok {
		return t, nil
	}
	t := &typeDef{}
	l.built[n] = t
	switch n.name.local {
	case "complexType":
		ct, err := l.complex(n)
		if err != nil {
			return nil, err
		}
		t.complex = ct
	default:
		st, err := l.simple(n)
		if err != nil {
			return nil, err
		}
		t.simple = st
	}
	return t, nil
}

// simple builds a simple type: a restriction of a base with facets.
func (l *loader) simple(n *node) (*simpleType, error) {
	var r *node
	for _, c := range n.kids {
		switch {
		case c.name == qname{xsdNS, "restriction"}:
			r = c
		case c.name == qname{xsdNS, "annotation"}:
		default:
			return nil, fmt.Errorf("xs:%s in a simple type is not supported", c.name.local)
		}
	}
	if r == nil {
		return nil, errors.New("a simple type without a restriction")
	}
	return l.restriction(r)
}

func (l *loader) restriction(r *node) (*simpleType, error) {
	st := &simpleType{length: -1, minLen: -1, maxLen: -1}
	if b, ok := r.attr("base"); ok {
		q, err := r.resolve(b)
		if err != nil {
			return nil, err
		}
		t, err := l.named(q)
		if err != nil {
			return nil, err
		}
		if t.simple == nil {
			return nil, fmt.Errorf("restriction of complex type %s", q.local)
		}
		st.base = t.simple
	}
	for _, c := range r.kids {
		if c.name.space != xsdNS {
			continue
		}
		v, _ := c.attr("value")
		num := func(dst *int) error {
			_, err := fmt.Sscan(v, dst)
			return err
		}
		var err error
		switch c.name.local {
		case "enumeration":
			st.enums = append(st.enums, v)
		case "pattern":
			var re *regexp.Regexp
			if re, err = regexp.Compile(`^(?:` + v + `)$`); err != nil {
				return nil, fmt.Errorf("pattern %q: %w", v, err)
			}
			st.patterns = append(st.patterns, re)
		case "length":
			err = num(&st.length)
		case "minLength":
			err = num(&st.minLen)
		case "maxLength":
			err = num(&st.maxLen)
		case "whiteSpace":
			st.ws = v
		case "simpleType":
			b, e := l.simple(c)
			if e != nil {
				return nil, e
			}
			st.base = b
		case "annotation":
		default:
			return nil, fmt.Errorf("facet xs:%s is not supported", c.name.local)
		}
		if err != nil {
			return nil, err
		}
	}
	if st.base == nil {
		return nil, errors.New("a restriction without a base")
	}
	return st, nil
}

// complex builds a complex type: one sequence or choice (or simple
// content) and attributes.
func (l *loader) complex(n *node) (*complexType, error) {
	ct := &complexType{}
	for _, c := range n.kids {
		if c.name.space != xsdNS {
			continue
		}
		switch c.name.local {
		case "sequence", "choice":
			g, err := l.group(c)
			if err != nil {
				return nil, err
			}
			ct.content = g
		case "attribute":
			a, err := l.attribute(c)
			if err != nil {
				return nil, err
			}
			ct.attrs = append(ct.attrs, a)
		case "simpleContent":
			for _, e := range c.kids {
				if e.name != (qname{xsdNS, "extension"}) {
					continue
				}
				b, _ := e.attr("base")
				q, err := e.resolve(b)
				if err != nil {
					return nil, err
				}
				t, err := l.named(q)
				if err != nil {
					return nil, err
				}
				if t.simple == nil {
					return nil, errors.New("simple content over a complex type")
				}
				ct.text = t.simple
				for _, a := range e.kids {
					if a.name == (qname{xsdNS, "attribute"}) {
						at, err := l.attribute(a)
						if err != nil {
							return nil, err
						}
						ct.attrs = append(ct.attrs, at)
					}
				}
			}
		case "anyAttribute":
			ct.anyAttrs = true
		case "annotation":
		default:
			return nil, fmt.Errorf("xs:%s in a complex type is not supported", c.name.local)
		}
	}
	return ct, nil
}

func (l *loader) group(n *node) (*group, error) {
	min, max, err := occurs(n)
	if err != nil {
		return nil, err
	}
	g := &group{choice: n.name.local == "choice", min: min, max: max}
	for _, c := range n.kids {
		if c.name.space != xsdNS {
			continue
		}
		switch c.name.local {
		case "element":
			e, err := l.local(c)
			if err != nil {
				return nil, err
			}
			g.items = append(g.items, particle{elem: e})
		case "sequence", "choice":
			sub, err := l.group(c)
			if err != nil {
				return nil, err
			}
			g.items = append(g.items, particle{group: sub})
		case "any":
			// The answers' event details (procEventoNFe's retEvento)
			// are xs:any processContents="skip".
			min, max, err := occurs(c)
			if err != nil {
				return nil, err
			}
			pc, _ := c.attr("processContents")
			strict := pc == "strict" || pc == ""
			g.items = append(g.items, particle{elem: &element{wildcard: true, strict: strict, globals: l.globals, min: min, max: max}})
		case "annotation":
		default:
			return nil, fmt.Errorf("xs:%s in a model group is not supported", c.name.local)
		}
	}
	return g, nil
}

// local reads an element declared in a model group, or a reference to a
// global one.
func (l *loader) local(n *node) (*element, error) {
	min, max, err := occurs(n)
	if err != nil {
		return nil, err
	}
	if ref, ok := n.attr("ref"); ok {
		q, err := n.resolve(ref)
		if err != nil {
			return nil, err
		}
		g, err := l.global(q)
		if err != nil {
			return nil, err
		}
		e := *g
		e.min, e.max = min, max
		return &e, nil
	}
	// Local declarations take the target namespace of their schema
	// (elementFormDefault="qualified").
	name, _ := n.attr("name")
	e := &element{name: qname{target(n), name}, min: min, max: max}
	return e, l.fillElement(e, n)
}

func (l *loader) attribute(n *node) (*attribute, error) {
	name, _ := n.attr("name")
	a := &attribute{name: name}
	if u, _ := n.attr("use"); u == "required" {
		a.required = true
	}
	if f, ok := n.attr("fixed"); ok {
		a.fixed = &f
	}
	if t, ok := n.attr("type"); ok {
		q, err := n.resolve(t)
		if err != nil {
			return nil, err
		}
		td, err := l.named(q)
		if err != nil {
			return nil, err
		}
		if td.simple == nil {
			return nil, errors.New("attribute of a complex type")
		}
		a.typ = td.simple
	}
	for _, c := range n.kids {
		if c.name == (qname{xsdNS, "simpleType"}) {
			st, err := l.simple(c)
			if err != nil {
				return nil, err
			}
			a.typ = st
		}
	}
	if a.typ == nil {
		a.typ, _ = l.builtin("string")
	}
	return a, nil
}

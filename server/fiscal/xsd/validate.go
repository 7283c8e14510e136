package xsd

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Error is one reason a document does not satisfy the schema, at the
// element it concerns.
type Error struct {
	Line    int
	Element string
	Message string
}

func (e Error) Error() string {
	return fmt.Sprintf("line %d: element '%s': %s", e.Line, e.Element, e.Message)
}

// Errors are every reason found.
type Errors []Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Validate checks a document: nil, or Errors (or the parse error of a
// document that is not well-formed XML).
func (s *Schema) Validate(doc []byte) error {
	root, err := parse(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	e, ok := s.elements[root.name]
	if !ok {
		return Errors{{root.line, root.name.local, "no matching global declaration available for the validation root"}}
	}
	var v validation
	v.element(e, root)
	if len(v.errs) > 0 {
		return v.errs
	}
	return nil
}

type validation struct{ errs Errors }

func (v *validation) fail(n *node, format string, args ...any) {
	v.errs = append(v.errs, Error{n.line, n.name.local, fmt.Sprintf(format, args...)})
}

func (v *validation) element(e *element, n *node) {
	if e.typ == nil {
		return // anyType
	}
	if st := e.typ.simple; st != nil {
		v.noAttributes(n, nil)
		if len(n.kids) > 0 {
			v.fail(n, "element content is not allowed, the type is simple")
			return
		}
		if msg := st.check(n.text.String()); msg != "" {
			v.fail(n, "%s", msg)
		}
		return
	}
	ct := e.typ.complex
	if !ct.anyAttrs {
		v.noAttributes(n, ct.attrs)
	}
	for _, a := range ct.attrs {
		val, ok := n.attr(a.name)
		switch {
		case !ok && a.required:
			v.fail(n, "the attribute '%s' is required but missing", a.name)
		case !ok:
		case a.fixed != nil && a.typ.normalize(val) != *a.fixed:
			v.fail(n, "the value '%s' of attribute '%s' does not match the fixed value '%s'", val, a.name, *a.fixed)
		default:
			if msg := a.typ.check(val); msg != "" {
				v.fail(n, "attribute '%s': %s", a.name, msg)
			}
		}
	}
	if ct.text != nil {
		if len(n.kids) > 0 {
			v.fail(n, "element content is not allowed, the content is simple")
			return
		}
		if msg := ct.text.check(n.text.String()); msg != "" {
			v.fail(n, "%s", msg)
		}
		return
	}
	if strings.TrimSpace(n.text.String()) != "" {
		v.fail(n, "character content other than whitespace is not allowed")
	}
	if ct.content == nil {
		if len(n.kids) > 0 {
			v.fail(n.kids[0], "this element is not expected, the content of '%s' is empty", n.name.local)
		}
		return
	}
	m := matcher{kids: n.kids}
	ends := m.repeat(particle{group: ct.content}, ct.content.min, ct.content.max, []state{{}})
	for _, st := range ends {
		if st.pos == len(n.kids) {
			for i, k := range n.kids {
				v.element(st.decl(i), k)
			}
			for _, u := range e.uniques {
				seen := map[string]bool{}
				for _, k := range n.kids {
					if val, ok := k.attr(u); ok {
						if seen[val] {
							v.fail(k, "duplicate key-sequence ['%s'] in unique identity-constraint", val)
						}
						seen[val] = true
					}
				}
			}
			return
		}
	}
	// No way through: name the first child the content model cannot take,
	// or the children it still needs.
	if m.furthest < len(n.kids) {
		v.fail(n.kids[m.furthest], "this element is not expected")
	} else {
		v.fail(n, "missing child element(s)")
	}
}

func (v *validation) noAttributes(n *node, allowed []*attribute) {
	for _, a := range n.attrs {
		if a.Name.Space == "http://www.w3.org/2001/XMLSchema-instance" {
			continue
		}
		if a.Name.Space != "" || !slices.ContainsFunc(allowed, func(d *attribute) bool { return d.name == a.Name.Local }) {
			v.fail(n, "the attribute '%s' is not allowed", a.Name.Local)
		}
	}
}

// state is a way through a content model so far: how many children it
// took and the declaration each one matched.
type state struct {
	pos   int
	decls *declList
}

type declList struct {
	prev *declList
	decl *element
}

func (s state) decl(i int) *element {
	d := s.decls
	for n := s.pos - 1; n > i; n-- {
		d = d.prev
	}
	return d.decl
}

// matcher finds the ways a content model takes a list of children.
type matcher struct {
	kids     []*node
	furthest int
}

// once answers the states after one occurrence of p from each of from.
func (m *matcher) once(p particle, from []state) []state {
	var out []state
	if p.elem != nil {
		for _, s := range from {
			if s.pos >= len(m.kids) {
				continue
			}
			decl, ok := p.elem, m.kids[s.pos].name == p.elem.name
			if p.elem.wildcard {
				// A strict wildcard takes an element the schema declares,
				// held to that declaration.
				ok = true
				if p.elem.strict {
					decl, ok = p.elem.globals[m.kids[s.pos].name]
				}
			}
			if ok {
				out = append(out, state{s.pos + 1, &declList{s.decls, decl}})
				m.furthest = max(m.furthest, s.pos+1)
			}
		}
		return out
	}
	g := p.group
	if g.choice {
		for _, it := range g.items {
			min, max := occurrences(it)
			out = append(out, m.repeat(it, min, max, from)...)
		}
		return dedupe(out)
	}
	cur := from
	for _, it := range g.items {
		min, max := occurrences(it)
		cur = m.repeat(it, min, max, cur)
		if len(cur) == 0 {
			return nil
		}
	}
	return cur
}

func occurrences(p particle) (int, int) {
	if p.elem != nil {
		return p.elem.min, p.elem.max
	}
	return p.group.min, p.group.max
}

// repeat answers the states after min to max occurrences of p.
func (m *matcher) repeat(p particle, min, max int, from []state) []state {
	var out []state
	if min == 0 {
		out = append(out, from...)
	}
	cur := from
	for i := 1; max < 0 || i <= max; i++ {
		next := m.once(p, cur)
		// Only progress counts: an occurrence that takes nothing (an
		// optional group matched empty) cannot loop.
		next = slices.DeleteFunc(next, func(s state) bool {
			return slices.ContainsFunc(cur, func(c state) bool { return c.pos == s.pos })
		})
		if len(next) == 0 {
			break
		}
		if i >= min {
			out = append(out, next...)
		}
		cur = dedupe(next)
	}
	// An empty occurrence of a group whose every part is optional
	// satisfies its minimum.
	if min > 0 && p.group != nil && nullable(p.group) {
		out = append(out, from...)
	}
	return dedupe(out)
}

// nullable reports a group that can match no element at all.
func nullable(g *group) bool {
	if g.min == 0 {
		return true
	}
	if g.choice {
		for _, it := range g.items {
			if it.elem != nil && it.elem.min == 0 || it.group != nil && nullable(it.group) {
				return true
			}
		}
		return false
	}
	for _, it := range g.items {
		if it.elem != nil && it.elem.min > 0 || it.group != nil && !nullable(it.group) {
			return false
		}
	}
	return true
}

// dedupe keeps the first state for each position: the schemas obey the
// unique particle attribution rule, so one way through is as good as
// another.
func dedupe(ss []state) []state {
	out := ss[:0:0]
	for _, s := range ss {
		if !slices.ContainsFunc(out, func(o state) bool { return o.pos == s.pos }) {
			out = append(out, s)
		}
	}
	return out
}

// normalize applies the type's whiteSpace facet.
func (st *simpleType) normalize(v string) string {
	ws := ""
	for t := st; t != nil && ws == ""; t = t.base {
		ws = t.ws
	}
	switch ws {
	case "replace":
		return strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, v)
	case "collapse":
		return strings.Join(strings.Fields(v), " ")
	}
	return v
}

// check answers why a value does not satisfy the type, or "".
func (st *simpleType) check(raw string) string {
	v := st.normalize(raw)
	var chain []*simpleType
	for t := st; t != nil; t = t.base {
		chain = append(chain, t)
	}
	slices.Reverse(chain)
	for _, t := range chain {
		if t.builtin != "" {
			if re := builtinChecks[t.builtin].valid; re != nil && !re.MatchString(v) {
				return fmt.Sprintf("'%s' is not a valid value of the atomic type 'xs:%s'", v, t.builtin)
			}
			continue
		}
		n := utf8.RuneCountInString(v)
		switch {
		case t.length >= 0 && n != t.length:
			return fmt.Sprintf("[facet 'length'] the value '%s' has a length of '%d'; this differs from the allowed length of '%d'", v, n, t.length)
		case t.minLen >= 0 && n < t.minLen:
			return fmt.Sprintf("[facet 'minLength'] the value '%s' has a length of '%d'; this underruns the allowed minimum length of '%d'", v, n, t.minLen)
		case t.maxLen >= 0 && n > t.maxLen:
			return fmt.Sprintf("[facet 'maxLength'] the value '%s' has a length of '%d'; this exceeds the allowed maximum length of '%d'", v, n, t.maxLen)
		case len(t.enums) > 0 && !slices.Contains(t.enums, v):
			return fmt.Sprintf("[facet 'enumeration'] the value '%s' is not an element of the set {'%s'}", v, strings.Join(t.enums, "', '"))
		case len(t.patterns) > 0 && !slices.ContainsFunc(t.patterns, func(re *regexp.Regexp) bool { return re.MatchString(v) }):
			return fmt.Sprintf("[facet 'pattern'] the value '%s' is not accepted by the pattern '%s'", v, patternText(t.patterns))
		}
	}
	return ""
}

func patternText(res []*regexp.Regexp) string {
	parts := make([]string, len(res))
	for i, re := range res {
		s := re.String()
		parts[i] = strings.TrimSuffix(strings.TrimPrefix(s, "^(?:"), ")$")
	}
	return strings.Join(parts, "|")
}

package render

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// allowedElements are what user-supplied template HTML may contain: text
// structure and tables. Everything else (script, style, iframe, object,
// svg, math, form, img, link, meta, ...) is dropped, its content too for
// the elements whose content is code.
var allowedElements = map[atom.Atom]bool{
	atom.P: true, atom.Br: true, atom.B: true, atom.Strong: true, atom.I: true, atom.Em: true, atom.U: true, atom.S: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Ul: true, atom.Ol: true, atom.Li: true,
	atom.Table: true, atom.Thead: true, atom.Tbody: true, atom.Tfoot: true, atom.Tr: true, atom.Th: true, atom.Td: true,
	atom.Div: true, atom.Span: true, atom.Blockquote: true, atom.Hr: true, atom.Small: true, atom.Sub: true, atom.Sup: true,
	atom.A: true, atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Pre: true, atom.Code: true,
	atom.Caption: true, atom.Col: true, atom.Colgroup: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
}

// droppedWithContent are elements whose content is code or foreign
// markup: they go whole.
var droppedWithContent = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Svg: true, atom.Math: true,
	atom.Template: true, atom.Noscript: true, atom.Textarea: true, atom.Select: true, atom.Frameset: true, atom.Frame: true,
	atom.Applet: true, atom.Title: true, atom.Head: true,
}

// allowedAttrs are the attributes kept; no event handler, no style, no
// src: a template loads nothing and runs nothing.
var allowedAttrs = map[string]bool{"class": true, "colspan": true, "rowspan": true, "align": true, "href": true, "title": true, "id": true}

// SanitizeHTML reduces user-supplied HTML to the allow-list: what it
// returns is inert whatever it was given (scripts, handlers, javascript:
// URLs, external loads, malformed markup).
func SanitizeHTML(in string) string {
	nodes, err := html.ParseFragment(strings.NewReader(in), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return html.EscapeString(in)
	}
	var buf bytes.Buffer
	for _, n := range nodes {
		clean(n, &buf)
	}
	return buf.String()
}

func clean(n *html.Node, buf *bytes.Buffer) {
	switch n.Type {
	case html.TextNode:
		buf.WriteString(html.EscapeString(n.Data))
		return
	case html.ElementNode:
	default:
		return // comments, doctypes
	}
	if droppedWithContent[n.DataAtom] || n.DataAtom == 0 && strings.Contains(n.Data, ":") {
		return
	}
	keep := allowedElements[n.DataAtom]
	if keep {
		buf.WriteByte('<')
		buf.WriteString(n.DataAtom.String())
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			if a.Namespace != "" || !allowedAttrs[key] {
				continue
			}
			if key == "href" && !safeHref(a.Val) {
				continue
			}
			buf.WriteString(" " + key + `="` + html.EscapeString(a.Val) + `"`)
		}
		buf.WriteByte('>')
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		clean(c, buf)
	}
	if keep && n.DataAtom != atom.Br && n.DataAtom != atom.Hr && n.DataAtom != atom.Col {
		buf.WriteString("</" + n.DataAtom.String() + ">")
	}
}

// safeHref allows web and mail links only.
func safeHref(v string) bool {
	v = strings.ToLower(strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, v)))
	return strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "mailto:") || strings.HasPrefix(v, "#")
}

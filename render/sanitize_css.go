package render

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// cssFunctions are the CSS functions page CSS may use: colours, maths,
// gradients, transforms and the selectors' own. None of them loads
// anything; url(), image(), image-set(), cross-fade(), element(), src()
// and expression() are not among them, however they are spelled.
var cssFunctions = map[string]bool{
	"rgb": true, "rgba": true, "hsl": true, "hsla": true, "hwb": true, "lab": true, "lch": true, "oklab": true, "oklch": true,
	"color": true, "color-mix": true, "calc": true, "min": true, "max": true, "clamp": true, "var": true, "counter": true,
	"counters": true, "attr": true, "linear-gradient": true, "radial-gradient": true, "conic-gradient": true,
	"repeating-linear-gradient": true, "repeating-radial-gradient": true, "repeating-conic-gradient": true,
	"translate": true, "translatex": true, "translatey": true, "rotate": true, "scale": true, "scalex": true, "scaley": true,
	"skew": true, "skewx": true, "skewy": true, "matrix": true, "not": true, "is": true, "where": true, "has": true,
	"nth-child": true, "nth-last-child": true, "nth-of-type": true, "nth-last-of-type": true, "lang": true, "dir": true,
}

// cssAtRules are the at-rules page CSS may use; any other (@import,
// @font-face, @namespace, ...) goes with its block.
var cssAtRules = map[string]bool{"media": true, "page": true, "supports": true, "keyframes": true}

// cssProperties are properties that run code in some browser.
var cssDangerousProperties = map[string]bool{"behavior": true, "-moz-binding": true}

// SanitizeCSS keeps page CSS that loads nothing and runs nothing. It reads
// the CSS as a browser does (the CSS Syntax Level 3 tokenizer of
// github.com/tdewolff/parse) and judges each token by its name after
// escapes are decoded, so `u\72l(…)` is url() and `@\69mport` is @import:
// a declaration or selector holding a URL, a function outside
// cssFunctions, a dangerous property or markup ('<', "<!--") is dropped
// whole, and an at-rule outside cssAtRules with its block. Comments go.
// What is kept is written as it came (FuzzSanitizeCSS).
func SanitizeCSS(in string) string {
	if !utf8.ValidString(in) {
		in = strings.ToValidUTF8(in, "\uFFFD")
	}
	l := css.NewLexer(parse.NewInputString(in))
	var out, chunk bytes.Buffer
	safe := true   // the chunk so far
	skipDepth := 0 // >0: inside the block of a dropped at-rule
	dropAt := false
	depth := 0 // open braces kept
	// Whatever is dropped leaves a blank: the tokens on either side must
	// not join into a new one (u/**/rl( is not url().
	flush := func() {
		if safe && !dropAt {
			out.Write(chunk.Bytes())
		} else if chunk.Len() > 0 {
			out.WriteByte(' ')
		}
		chunk.Reset()
		safe = true
	}
	for {
		tt, raw := l.Next()
		if tt == css.ErrorToken {
			break
		}
		if skipDepth > 0 {
			switch {
			case tt == css.LeftBraceToken:
				skipDepth++
			case tt == css.RightBraceToken:
				if skipDepth--; skipDepth == 0 {
					out.WriteByte(' ')
				}
			}
			continue
		}
		switch tt {
		case css.CommentToken:
			chunk.WriteByte(' ')
			continue
		case css.SemicolonToken:
			chunk.Write(raw)
			flush()
			dropAt = false
			continue
		case css.LeftBraceToken:
			if dropAt || !safe {
				// A dropped at-rule's or selector's block goes whole.
				chunk.Reset()
				safe, dropAt = true, false
				skipDepth = 1
				continue
			}
			chunk.Write(raw)
			flush()
			depth++
			continue
		case css.RightBraceToken:
			flush()
			dropAt = false
			if depth > 0 {
				depth--
				out.Write(raw)
			} else {
				out.WriteByte(' ') // unmatched: dropped
			}
			continue
		case css.AtKeywordToken:
			if !cssAtRules[strings.TrimPrefix(strings.TrimPrefix(cssName(raw[1:]), "-webkit-"), "-moz-")] {
				dropAt = true
			}
		case css.FunctionToken:
			if !cssFunctions[cssName(bytes.TrimSuffix(raw, []byte("(")))] {
				safe = false
			}
		case css.IdentToken:
			if cssDangerousProperties[cssName(raw)] {
				safe = false
			}
		case css.URLToken, css.BadURLToken, css.BadStringToken, css.CDOToken, css.CDCToken:
			safe = false
		}
		if bytes.IndexByte(raw, '<') >= 0 {
			safe = false // no markup, even in a string: it could close the <style> element
		}
		chunk.Write(raw)
		if endsInHexEscape(raw) {
			// A hex escape takes one blank after it as its own: the blank
			// that parts this token from the next (a dropped one's) must
			// come after that one, or `\0}(` would become the function
			// `\0 (` (FuzzSanitizeCSS). The escape's own blank changes
			// nothing.
			chunk.WriteByte(' ')
		}
	}
	flush()
	// A backslash at the end is a lone delimiter; the braces closed below
	// would make it an escape (`@\}` is an at-rule named "}"). A newline
	// after it is never escaped.
	if depth > 0 && bytes.HasSuffix(out.Bytes(), []byte(`\`)) {
		out.WriteByte('\n')
	}
	for ; depth > 0; depth-- {
		out.WriteByte('}')
	}
	return out.String()
}

// cssName decodes a CSS name's escapes (CSS Syntax Level 3, 4.3.7: a
// backslash and one to six hex digits with one optional blank, or a
// backslash and any other character) and lowers its ASCII letters.
func cssName(raw []byte) string {
	var b strings.Builder
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		for j < len(raw) && j < i+7 && isHex(raw[j]) {
			j++
		}
		if j == i+1 {
			r, n := utf8.DecodeRune(raw[j:])
			b.WriteString(strings.ToLower(string(r)))
			i = j + n
			continue
		}
		var v rune
		for _, h := range raw[i+1 : j] {
			v = v*16 + rune(hexVal(h))
		}
		if v == 0 || v > utf8.MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
			v = utf8.RuneError
		}
		b.WriteString(strings.ToLower(string(v)))
		if j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n') {
			j++
		}
		i = j
	}
	return b.String()
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// endsInHexEscape says a token ends with a hex escape (a backslash not
// itself escaped, then one to six hex digits) that no blank closes yet.
func endsInHexEscape(raw []byte) bool {
	i := len(raw)
	for i > 0 && isHex(raw[i-1]) {
		i--
	}
	digits := len(raw) - i
	if digits == 0 || digits > 6 || i == 0 || raw[i-1] != '\\' {
		return false
	}
	slashes := 0
	for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
		slashes++
	}
	return slashes%2 == 1
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

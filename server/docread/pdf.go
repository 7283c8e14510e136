package docread

import (
	"bytes"
	"compress/zlib"
	"io"
	"strings"
)

// maxInflated bounds the decompressed size of a PDF's streams together, so
// that a decompression bomb costs nothing.
const maxInflated = 32 << 20

// PDFText extracts the text a PDF shows with simple fonts: the strings of
// the text operators (Tj, TJ, ', ") in its content streams, raw or
// FlateDecode, one line per text line. It is no general PDF reader: text in
// composite fonts (Identity-H) or scanned images does not come out, and
// such a file reads as having no fields.
func PDFText(data []byte) (string, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data, "\x00\t\r\n "), []byte("%PDF-")) {
		return "", ErrUnreadable
	}
	var out strings.Builder
	budget := maxInflated
	rest := data
	for {
		i := bytes.Index(rest, []byte("stream"))
		if i < 0 {
			break
		}
		// "endstream" also contains "stream": skip it.
		if i >= 3 && string(rest[i-3:i]) == "end" {
			rest = rest[i+6:]
			continue
		}
		dict := rest[:i]
		if j := bytes.LastIndex(dict, []byte("obj")); j >= 0 {
			dict = dict[j:]
		}
		body := rest[i+6:]
		body = bytes.TrimPrefix(body, []byte("\r"))
		body = bytes.TrimPrefix(body, []byte("\n"))
		end := bytes.Index(body, []byte("endstream"))
		if end < 0 {
			break
		}
		raw := body[:end]
		rest = body[end+9:]
		content := raw
		switch {
		case bytes.Contains(dict, []byte("/FlateDecode")):
			zr, err := zlib.NewReader(bytes.NewReader(raw))
			if err != nil {
				continue
			}
			inflated, err := io.ReadAll(io.LimitReader(zr, int64(budget)+1))
			zr.Close()
			if len(inflated) > budget {
				return "", ErrUnreadable
			}
			if err != nil && len(inflated) == 0 {
				continue
			}
			budget -= len(inflated)
			content = inflated
		case bytes.Contains(dict, []byte("/Filter")):
			continue // images and other encodings carry no text we read
		}
		if bytes.Contains(content, []byte("BT")) {
			showText(content, &out)
		}
	}
	return out.String(), nil
}

// showText appends the text shown by one content stream.
func showText(c []byte, out *strings.Builder) {
	var operands []string
	line := func() {
		if out.Len() > 0 && !strings.HasSuffix(out.String(), "\n") {
			out.WriteByte('\n')
		}
	}
	for i := 0; i < len(c); {
		ch := c[i]
		switch {
		case ch == '(':
			s, n := literal(c[i:])
			operands = append(operands, s)
			i += n
		case ch == '<' && i+1 < len(c) && c[i+1] != '<':
			end := bytes.IndexByte(c[i:], '>')
			if end < 0 {
				return
			}
			operands = append(operands, hexString(c[i+1:i+end]))
			i += end + 1
		case ch == '[':
			operands = operands[:0]
			i++
		case ch == ']':
			i++
		case ch == '%':
			for i < len(c) && c[i] != '\n' && c[i] != '\r' {
				i++
			}
		case isRegular(ch) && !(ch >= '0' && ch <= '9') && ch != '-' && ch != '.' && ch != '+':
			j := i
			for j < len(c) && isRegular(c[j]) {
				j++
			}
			switch string(c[i:j]) {
			case "Tj", "TJ":
				out.WriteString(strings.Join(operands, ""))
			case "'", "\"":
				line()
				out.WriteString(strings.Join(operands, ""))
			case "Td", "TD", "T*", "ET", "Tm":
				line()
			}
			operands = operands[:0]
			i = j
		case ch == '\'' || ch == '"':
			line()
			out.WriteString(strings.Join(operands, ""))
			operands = operands[:0]
			i++
		default:
			i++
		}
	}
	line()
}

func isRegular(c byte) bool {
	return c > ' ' && !strings.ContainsRune("()<>[]{}/%", rune(c))
}

// literal decodes a PDF literal string starting at c[0] == '(' and answers
// it (as Latin-1, PDF's usual simple-font encoding) and its length.
func literal(c []byte) (string, int) {
	var b []byte
	depth := 0
	for i := 0; i < len(c); i++ {
		ch := c[i]
		switch {
		case ch == '\\' && i+1 < len(c):
			i++
			switch e := c[i]; e {
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'b', 'f':
			case '\r', '\n':
			default:
				if e >= '0' && e <= '7' {
					v, n := 0, 0
					for n < 3 && i < len(c) && c[i] >= '0' && c[i] <= '7' {
						v = v*8 + int(c[i]-'0')
						i++
						n++
					}
					i--
					b = append(b, byte(v))
				} else {
					b = append(b, e)
				}
			}
		case ch == '(':
			if depth > 0 {
				b = append(b, ch)
			}
			depth++
		case ch == ')':
			depth--
			if depth == 0 {
				return latin1(b), i + 1
			}
			b = append(b, ch)
		default:
			b = append(b, ch)
		}
	}
	return latin1(b), len(c)
}

func hexString(h []byte) string {
	var b []byte
	var hi int = -1
	for _, ch := range h {
		var v int
		switch {
		case ch >= '0' && ch <= '9':
			v = int(ch - '0')
		case ch >= 'a' && ch <= 'f':
			v = int(ch-'a') + 10
		case ch >= 'A' && ch <= 'F':
			v = int(ch-'A') + 10
		default:
			continue
		}
		if hi < 0 {
			hi = v
		} else {
			b = append(b, byte(hi<<4|v))
			hi = -1
		}
	}
	if hi >= 0 {
		b = append(b, byte(hi<<4))
	}
	return latin1(b)
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

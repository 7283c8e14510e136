package store

import (
	"database/sql/driver"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"modernc.org/sqlite"
)

// fold is the form text searches compare: lower case and without accents
// (NFD with its combining marks dropped), so "JOSÉ", "José" and "jose"
// find one another, as anyone typing a Brazilian name expects. The
// contact search index holds the names passed through it (fincom_fold,
// migration 24), so its hits always include what the exact test keeps.
// TestSearchFoldsCaseAndAccents holds it.
func fold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// foldRune is one letter for every case of it (S, s and ſ; Β, β and
// ϐ; K, k and the Kelvin sign): the lower case of its upper case, so
// ToLower(ToUpper(r)) != r cannot split a name from its search. For
// ASCII it is strings.ToLower's.
func foldRune(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }

// foldFunc is the SQL name of fold: searches test
// instr(fincom_fold(column), ?) > 0 with the text folded in Go, which
// is also LIKE '%text%' without its wildcards to escape.
const foldFunc = "fincom_fold"

// The function is registered with the driver once, for every connection
// it opens: a pure function, like the collations SQLite ships.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction(foldFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return fold(v), nil
		case []byte:
			return fold(string(v)), nil
		}
		return args[0], nil
	})
}

// Fold is the form text searches compare (fold), for lists filtered
// outside SQL (the portal's searches of its read-only lists).
func Fold(s string) string { return fold(s) }

package xsd

import (
	"fmt"
	"regexp"
)

// builtins are the XML Schema types the layouts derive from, with their
// whiteSpace and lexical check.
var builtinChecks = map[string]struct {
	ws    string
	valid *regexp.Regexp
}{
	"string":       {"preserve", nil},
	"token":        {"collapse", nil},
	"anyURI":       {"collapse", nil},
	"base64Binary": {"collapse", regexp.MustCompile(`^(?:[A-Za-z0-9+/] ?){0,}(?:[A-Za-z0-9+/] ?[A-Za-z0-9+/] ?[A-Za-z0-9+/] ?[A-Za-z0-9+/]|[A-Za-z0-9+/] ?[A-Za-z0-9+/] ?[AEIMQUYcgkosw048] ?=|[A-Za-z0-9+/] ?[AQgw] ?= ?=)?$`)},
	"ID":           {"collapse", regexp.MustCompile(`^[\pL_][\pL\pN._\-]*$`)},
	"integer":      {"collapse", regexp.MustCompile(`^[+-]?[0-9]+$`)},
	"decimal":      {"collapse", regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)},
	"date":         {"collapse", regexp.MustCompile(`^-?[0-9]{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)},
	"dateTime":     {"collapse", regexp.MustCompile(`^-?[0-9]{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?)(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)},
}

func (l *loader) builtin(name string) (*simpleType, error) {
	if st, ok := l.builtins[name]; ok {
		return st, nil
	}
	b, ok := builtinChecks[name]
	if !ok {
		return nil, fmt.Errorf("built-in type xs:%s is not supported", name)
	}
	st := &simpleType{builtin: name, ws: b.ws, length: -1, minLen: -1, maxLen: -1}
	l.builtins[name] = st
	return st, nil
}

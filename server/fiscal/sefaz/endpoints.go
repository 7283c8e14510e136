// Package sefaz holds where the tax authorities' web services answer: the
// SEFAZ endpoints of NF-e (model 55) and NFC-e (model 65) per authorizer,
// environment and service, which authorizer serves each state, and the
// national NFS-e system's addresses. The tables ship embedded, as the
// authorities publish them (sped-nfe's copies of the Portal Nacional da
// NF-e's lists); an operator overrides any address with a JSON file
// (serve --fiscal-endpoints), since the states move their services.
package sefaz

import (
	"embed"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
)

//go:embed data/*
var data embed.FS

// Environments, as the override file names them (tpAmb 2 and 1).
const (
	Homologacao = "homologacao"
	Producao    = "producao"
)

// Endpoints are the services' addresses: model ("55", "65") → authorizer
// (a state, SVRS, SVAN, AN, SVCAN, SVCRS) → environment → service (its
// WSDL operation: NFeAutorizacao4, NFeRetAutorizacao4,
// NFeConsultaProtocolo4, NFeStatusServico4, NFeRecepcaoEvento4,
// NFeInutilizacao4, NFeDistribuicaoDFe; RecepcaoEPEC for AN's EPEC) →
// URL; and the national NFS-e system's per environment ("sefin", "adn").
type Endpoints struct {
	NFe         map[string]map[string]map[string]map[string]string
	NFSe        map[string]map[string]string
	authorizers map[string]map[string]string // model → state → authorizer
}

// Errors of Load and Lookup.
var (
	ErrUnknownState   = errors.New("no authorizer serves this state and model")
	ErrNoEndpoint     = errors.New("no address for this service")
	ErrBadEnvironment = errors.New("environment must be homologacao or producao")
)

// wsTable is sped-nfe's wsnfe_4.00_modNN.xml.
type wsTable struct {
	UF []struct {
		Sigla string     `xml:"sigla"`
		Homol wsServices `xml:"homologacao"`
		Prod  wsServices `xml:"producao"`
	} `xml:"UF"`
}

type wsServices struct {
	Services []struct {
		XMLName xml.Name
		URL     string `xml:",chardata"`
	} `xml:",any"`
}

// serviceNames name the tables' elements by their services' operations,
// as the override file does (the tables' own operation attributes are not
// uniform: some states write NFeRecepcaoEvento for NFeRecepcaoEvento4).
// The legacy services (NfeConsultaDest, NfeDownloadNF) are left out.
var serviceNames = map[string]string{
	"NfeAutorizacao": "NFeAutorizacao4", "NfeRetAutorizacao": "NFeRetAutorizacao4", "NfeConsultaProtocolo": "NFeConsultaProtocolo4",
	"NfeStatusServico": "NFeStatusServico4", "RecepcaoEvento": "NFeRecepcaoEvento4", "NfeInutilizacao": "NFeInutilizacao4",
	"NfeDistribuicaoDFe": "NFeDistribuicaoDFe", "RecepcaoEPEC": "RecepcaoEPEC", "NfeConsultaCadastro": "CadConsultaCadastro4",
}

// Load answers the shipped tables: a copy of its own, which Override may
// change.
func Load() (*Endpoints, error) {
	shipped, err := shippedTables()
	if err != nil {
		return nil, err
	}
	return shipped.clone(), nil
}

// shippedTables are the embedded tables, parsed once: they never change
// (Load hands out copies).
var shippedTables = sync.OnceValues(parseTables)

// clone copies every level of the tables.
func (e *Endpoints) clone() *Endpoints {
	c := &Endpoints{NFe: map[string]map[string]map[string]map[string]string{}, NFSe: map[string]map[string]string{},
		authorizers: map[string]map[string]string{}}
	for model, states := range e.NFe {
		c.NFe[model] = map[string]map[string]map[string]string{}
		for state, envs := range states {
			c.NFe[model][state] = map[string]map[string]string{}
			for env, services := range envs {
				c.NFe[model][state][env] = maps.Clone(services)
			}
		}
	}
	for env, services := range e.NFSe {
		c.NFSe[env] = maps.Clone(services)
	}
	for model, states := range e.authorizers {
		c.authorizers[model] = maps.Clone(states)
	}
	return c
}

// parseTables reads the embedded tables.
func parseTables() (*Endpoints, error) {
	e := &Endpoints{NFe: map[string]map[string]map[string]map[string]string{},
		NFSe: map[string]map[string]string{
			Homologacao: {"sefin": "https://sefin.producaorestrita.nfse.gov.br/SefinNacional", "adn": "https://adn.producaorestrita.nfse.gov.br"},
			Producao:    {"sefin": "https://sefin.nfse.gov.br/SefinNacional", "adn": "https://adn.nfse.gov.br"},
		}}
	b, err := data.ReadFile("data/autorizadores.json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &e.authorizers); err != nil {
		return nil, fmt.Errorf("autorizadores.json: %w", err)
	}
	for _, model := range []string{"55", "65"} {
		b, err := data.ReadFile("data/wsnfe_4.00_mod" + model + ".xml")
		if err != nil {
			return nil, err
		}
		var t wsTable
		if err := xml.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("wsnfe_4.00_mod%s.xml: %w", model, err)
		}
		byAuthorizer := map[string]map[string]map[string]string{}
		for _, uf := range t.UF {
			envs := map[string]map[string]string{}
			for env, s := range map[string]wsServices{Homologacao: uf.Homol, Producao: uf.Prod} {
				services := map[string]string{}
				for _, svc := range s.Services {
					u := strings.TrimSpace(svc.URL)
					if u == "" {
						continue
					}
					if name, ok := serviceNames[svc.XMLName.Local]; ok {
						services[name] = u
					}
				}
				envs[env] = services
			}
			byAuthorizer[uf.Sigla] = envs
		}
		e.NFe[model] = byAuthorizer
	}
	return e, nil
}

// Override replaces the addresses a JSON file gives, in the form
//
//	{"55": {"SP": {"homologacao": {"NFeAutorizacao4": "https://…"}}},
//	 "nfse": {"homologacao": {"sefin": "https://…", "adn": "https://…"}}}
//
// Every address must be an https URL; http is taken only to a loopback
// address (a local double) outside production, so that nothing goes to
// SEFAZ in clear. An
// authorizer the shipped tables do not name is taken and reported in
// warnings, not refused: a new authorizer may appear before fincom knows
// it.
func (e *Endpoints) Override(file []byte) (warnings []string, err error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(file, &in); err != nil {
		return nil, fileError("fiscal endpoints", err)
	}
	checkURL := func(where, env, raw string) error {
		u, err := url.Parse(raw)
		switch {
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			return fmt.Errorf("fiscal endpoints: %s: %q is not an https URL", where, raw)
		case u.Scheme == "http" && !loopback(u.Hostname()):
			return fmt.Errorf("fiscal endpoints: %s: %q would go in clear to another host: only https, or http to a loopback address", where, raw)
		case u.Scheme == "http" && env == Producao:
			return fmt.Errorf("fiscal endpoints: %s: %q is in clear: production takes only https", where, raw)
		}
		return nil
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, model := range keys {
		raw := in[model]
		if model == "nfse" {
			var envs map[string]map[string]string
			if err := json.Unmarshal(raw, &envs); err != nil {
				return nil, fileError("fiscal endpoints: nfse", err)
			}
			for env, services := range envs {
				if env != Homologacao && env != Producao {
					return nil, fmt.Errorf("fiscal endpoints: nfse: %q: %w", env, ErrBadEnvironment)
				}
				for name, u := range services {
					if name != "sefin" && name != "adn" {
						return nil, fmt.Errorf("fiscal endpoints: nfse %s: %q is neither sefin nor adn", env, name)
					}
					if err := checkURL("nfse "+env+" "+name, env, u); err != nil {
						return nil, err
					}
					e.NFSe[env][name] = u
				}
			}
			continue
		}
		if model != "55" && model != "65" {
			return nil, fmt.Errorf("fiscal endpoints: %q is not a model (55, 65) nor nfse", model)
		}
		var auths map[string]map[string]map[string]string
		if err := json.Unmarshal(raw, &auths); err != nil {
			return nil, fileError("fiscal endpoints: "+model, err)
		}
		for auth, envs := range auths {
			if _, known := e.NFe[model][auth]; !known {
				warnings = append(warnings, fmt.Sprintf("fiscal endpoints: model %s: %s is no authorizer the shipped table names", model, auth))
				e.NFe[model][auth] = map[string]map[string]string{}
			}
			for env, services := range envs {
				if env != Homologacao && env != Producao {
					return nil, fmt.Errorf("fiscal endpoints: %s %s: %q: %w", model, auth, env, ErrBadEnvironment)
				}
				if e.NFe[model][auth][env] == nil {
					e.NFe[model][auth][env] = map[string]string{}
				}
				for name, u := range services {
					if err := checkURL(model+" "+auth+" "+env+" "+name, env, u); err != nil {
						return nil, err
					}
					e.NFe[model][auth][env][name] = u
				}
			}
		}
	}
	sort.Strings(warnings)
	return warnings, nil
}

// Authorizer is the authorizer that serves a state's documents of a model
// (the shipped table; a contingency authorizer is named by the caller).
func (e *Endpoints) Authorizer(model, state string) (string, error) {
	a, ok := e.authorizers[model][state]
	if !ok {
		return "", fmt.Errorf("model %s, state %s: %w", model, state, ErrUnknownState)
	}
	return a, nil
}

// Lookup answers the address of a service of an authorizer.
func (e *Endpoints) Lookup(model, authorizer, env, service string) (string, error) {
	if env != Homologacao && env != Producao {
		return "", ErrBadEnvironment
	}
	u := e.NFe[model][authorizer][env][service]
	if u == "" {
		return "", fmt.Errorf("model %s, %s, %s, %s: %w", model, authorizer, env, service, ErrNoEndpoint)
	}
	return u, nil
}

// loopback tells an address of this machine: a loopback IP or localhost.
// Names are not resolved: a name that merely resolves to loopback today is
// not taken.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// fileError says what is wrong with a file that is not the JSON it
// should be, and where, without echoing any of its content (an operator
// may point at the wrong file, a secret one).
func fileError(where string, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("%s: not JSON (at byte %d)", where, syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("%s: a %s where an object of addresses goes (at byte %d)", where, typ.Value, typ.Offset)
	}
	return fmt.Errorf("%s: not the JSON of addresses", where)
}

// svcTable is data/svc.json: each state's contingency authorizer.
var svcTable = sync.OnceValues(func() (map[string]int, error) {
	b, err := data.ReadFile("data/svc.json")
	if err != nil {
		return nil, err
	}
	var t struct{ SVCAN, SVCRS []string }
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("svc.json: %w", err)
	}
	out := map[string]int{}
	for _, uf := range t.SVCAN {
		out[uf] = 6
	}
	for _, uf := range t.SVCRS {
		out[uf] = 7
	}
	return out, nil
})

// SVCOf is the tpEmis of a state's NF-e in SVC contingency, from the
// shipped table (data/svc.json): 6 (SVC-AN) or 7 (SVC-RS); ErrUnknownState
// for a state it does not name.
func SVCOf(state string) (int, error) {
	t, err := svcTable()
	if err != nil {
		return 0, err
	}
	tp, ok := t[state]
	if !ok {
		return 0, fmt.Errorf("no contingency authorizer for state %q: %w", state, ErrUnknownState)
	}
	return tp, nil
}

package xsd

import (
	"os"
	"testing"
	"testing/fstest"
)

func TestLoadFiscalSchemas(t *testing.T) {
	fsys := os.DirFS("../schemas")
	for _, name := range []string{"nfe-4.00/procNFe_v4.00.xsd", "nfe-4.00/nfe_v4.00.xsd", "nfse-nacional-1.00/NFSe_v1.00.xsd", "nfse-nacional-1.00/DPS_v1.00.xsd",
		"nfse-nacional-1.01/NFSe_v1.01.xsd", "nfse-nacional-1.01/DPS_v1.01.xsd"} {
		s, err := Load(fsys, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.elements) == 0 {
			t.Fatalf("%s: no elements", name)
		}
	}
}

// TestWildcardsAndDateTime: xs:any (skip) takes any elements without
// checking them, xs:anyAttribute any attribute, and xs:dateTime holds its
// lexical form, as the web services' answer schemas use them.
func TestWildcardsAndDateTime(t *testing.T) {
	fsys := fstest.MapFS{"w.xsd": {Data: []byte(`<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:w" targetNamespace="urn:w" elementFormDefault="qualified">
	<xs:element name="r"><xs:complexType><xs:sequence>
		<xs:element name="at" type="xs:dateTime"/>
		<xs:element name="x"><xs:complexType><xs:sequence><xs:any processContents="skip" maxOccurs="unbounded"/></xs:sequence>
			<xs:anyAttribute processContents="skip"/></xs:complexType></xs:element>
	</xs:sequence></xs:complexType></xs:element>
</xs:schema>`)}}
	s, err := Load(fsys, "w.xsd")
	if err != nil {
		t.Fatal(err)
	}
	for doc, ok := range map[string]bool{
		`<r xmlns="urn:w"><at>2026-11-26T10:00:00-03:00</at><x a="1"><y><z/></y><q:k xmlns:q="urn:q"/></x></r>`: true,
		`<r xmlns="urn:w"><at>2026-11-26T10:00:00.123Z</at><x><y/></x></r>`:                                     true,
		`<r xmlns="urn:w"><at>2026-11-26T10:00:00Z</at><x/></r>`:                                                false,
		`<r xmlns="urn:w"><at>2026-11-26 10:00:00</at><x/></r>`:                                                 false,
		`<r xmlns="urn:w"><at>2026-13-26T10:00:00</at><x/></r>`:                                                 false,
		`<r xmlns="urn:w"><x/></r>`:                                                                             false,
	} {
		if err := s.Validate([]byte(doc)); (err == nil) != ok {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// TestStrictWildcardAndInteger: a strict xs:any (the W3C signature
// schema's, which the national NFS-e 1.01 imports) takes only an element
// the schema declares, held to its declaration; xs:integer its lexical
// form.
func TestStrictWildcardAndInteger(t *testing.T) {
	fsys := fstest.MapFS{"s.xsd": {Data: []byte(`<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:s" targetNamespace="urn:s" elementFormDefault="qualified">
	<xs:element name="n" type="xs:integer"/>
	<xs:element name="r"><xs:complexType><xs:sequence><xs:any namespace="##any" minOccurs="0" maxOccurs="unbounded"/></xs:sequence></xs:complexType></xs:element>
</xs:schema>`)}}
	s, err := Load(fsys, "s.xsd")
	if err != nil {
		t.Fatal(err)
	}
	for doc, ok := range map[string]bool{
		`<r xmlns="urn:s"/>`:                          true,
		`<r xmlns="urn:s"><n>-42</n><n>7</n></r>`:     true,
		`<r xmlns="urn:s"><n>4.2</n></r>`:             false,
		`<r xmlns="urn:s"><m>1</m></r>`:               false,
		`<r xmlns="urn:s"><q:n xmlns:q="urn:q"/></r>`: false,
	} {
		if err := s.Validate([]byte(doc)); (err == nil) != ok {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// TestChameleonInclude: a schema without a namespace of its own, included
// into another's, takes the includer's namespace, its unprefixed
// references too (the reform's DFeTiposBasicos in the NF-e's).
func TestChameleonInclude(t *testing.T) {
	fsys := fstest.MapFS{
		"main.xsd": {Data: []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:a" targetNamespace="urn:a" elementFormDefault="qualified">` +
			`<xs:include schemaLocation="types.xsd"/><xs:element name="doc" type="TDoc"/></xs:schema>`)},
		"types.xsd": {Data: []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">` +
			`<xs:complexType name="TDoc"><xs:sequence><xs:element name="v" type="TCode"/></xs:sequence></xs:complexType>` +
			`<xs:simpleType name="TCode"><xs:restriction base="xs:string"><xs:pattern value="[0-9]{3}"/></xs:restriction></xs:simpleType></xs:schema>`)},
	}
	s, err := Load(fsys, "main.xsd")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`<doc xmlns="urn:a"><v>000</v></doc>`)); err != nil {
		t.Errorf("a valid document: %v", err)
	}
	if err := s.Validate([]byte(`<doc xmlns="urn:a"><v>0A0</v></doc>`)); err == nil {
		t.Error("a code the included type refuses was taken")
	}
}

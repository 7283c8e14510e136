package server

import (
	"net/http"
	"strings"
	"testing"

	"fincom/server/api"
	"fincom/server/brdoc"
	"fincom/server/registers"
	"fincom/store"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestContacts(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		// /get_contacts
		{name: "get ok", path: "/get_contacts", body: `{` + auth + `}`, status: 200, golden: "contacts/get_ok"},
		{name: "get search", path: "/get_contacts", body: `{` + auth + `,"search":"alfa"}`, status: 200, golden: "contacts/get_search"},
		{name: "get search no wildcard", path: "/get_contacts", body: `{` + auth + `,"search":"%"}`, status: 200, check: wantCount(0)},
		{name: "get register masked", path: "/get_contacts", body: `{` + auth + `,"register":"529.982.247-25"}`, status: 200, check: wantCount(1)},
		{name: "get unit B sees only its own", path: "/get_contacts", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}"}`, status: 200, golden: "contacts/get_unit_b"},
		{name: "get missing access", path: "/get_contacts", body: `{"unit_token":"{{unitA}}"}`, status: 400, text: "Missing parameters"},
		{name: "get missing unit", path: "/get_contacts", body: `{"access_token":"{{access}}"}`, status: 400, text: "Missing parameters"},
		{name: "get empty body", path: "/get_contacts", body: ``, status: 400, text: "Missing parameters"},
		{name: "get bad access", path: "/get_contacts", body: `{"access_token":"fca_acme_00","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
		{name: "get garbage access", path: "/get_contacts", body: `{"access_token":"hello","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
		{name: "get revoked access", path: "/get_contacts", body: `{"access_token":"{{revoked}}","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
		{name: "get other domain access", path: "/get_contacts", body: `{"access_token":"{{otherAccess}}","unit_token":"{{unitA}}"}`, status: 404, text: "Unit not found"},
		{name: "get other domain unit", path: "/get_contacts", body: `{"access_token":"{{access}}","unit_token":"{{unitC}}"}`, status: 404, text: "Unit not found"},
		{name: "get unknown domain", path: "/get_contacts", body: `{"access_token":"fca_nobody_00","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
		{name: "get array body", path: "/get_contacts", body: `[]`, status: 400, text: "Invalid JSON body."},
		{name: "get malformed", path: "/get_contacts", body: `{"access_token":`, status: 400, text: "Invalid JSON body."},
		{name: "get token wrong type", path: "/get_contacts", body: `{"access_token":12,"unit_token":"{{unitA}}"}`, status: 400, text: "Invalid parameter format"},
		{name: "get search wrong type", path: "/get_contacts", body: `{` + auth + `,"search":7}`, status: 400, text: "Invalid parameter format"},

		// /insert_contact
		{name: "insert legal", path: "/insert_contact", body: `{` + auth + `,"type":"legal","register":"11.222.333/0001-81","socialReason":"Beta Serviços S.A.","fantasyName":"Beta","phone":"(11) 2222-3333","zip_code":"01310-100","state":"sp"}`,
			status: 200, golden: "contacts/insert_legal"},
		{name: "insert then listed", path: "/get_contacts", before: []call{{"/insert_contact", `{` + auth + `,"type":"natural_person","register":"123.456.789-09","fullName":"Carlos Pereira","phone":"+55 (11) 91234-5678","email":"carlos@example.com","birthDate":"31/12/1990"}`}},
			body: `{` + auth + `,"register":"12345678909"}`, status: 200, golden: "contacts/insert_then_listed"},
		{name: "insert alphanumeric CNPJ", path: "/insert_contact", body: `{` + auth + `,"type":"legal","register":"12.abc.345/01de-35","socialReason":"Nova Era Ltda"}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				if r["message"] != "Contact created successfully." {
					t.Errorf("message = %v", r["message"])
				}
			}},
		{name: "insert alias full_name", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"12345678909","full_name":"Por Alias"}`, status: 200},
		{name: "insert missing type", path: "/insert_contact", body: `{` + auth + `,"register":"52998224725","fullName":"X"}`, status: 400, text: "Missing required parameters."},
		{name: "insert missing register", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","fullName":"X"}`, status: 400, text: "Missing required parameters."},
		{name: "insert missing tokens", path: "/insert_contact", body: `{"type":"natural_person"}`, status: 400, text: "Missing required parameters."},
		{name: "insert invalid CPF", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"123.456.789-10","fullName":"X"}`, status: 400, text: "Invalid CPF."},
		{name: "insert repeated CPF", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"111.111.111-11","fullName":"X"}`, status: 400, text: "Invalid CPF."},
		{name: "insert CNPJ as CPF", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"11222333000181","fullName":"X"}`, status: 400, text: "Invalid CPF."},
		{name: "insert invalid CNPJ", path: "/insert_contact", body: `{` + auth + `,"type":"legal","register":"ABCDEFGHIJKL81","socialReason":"X"}`, status: 400, text: "Invalid CNPJ."},
		{name: "insert no full name", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"12345678909"}`, status: 400, text: "Full name is required for natural persons."},
		{name: "insert no social reason", path: "/insert_contact", body: `{` + auth + `,"type":"legal","register":"11222333000181","fantasyName":"Só Fantasia"}`, status: 400, text: "Company name (social reason) is required for legal entities."},
		{name: "insert bad type", path: "/insert_contact", body: `{` + auth + `,"type":"company","register":"11222333000181","socialReason":"X"}`, status: 400, text: "Invalid contact type."},
		{name: "insert duplicate register", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"529.982.247-25","fullName":"Outra Maria"}`, status: 400, text: "Register already used in a contact of this unit."},
		{name: "insert duplicate of inactive", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"11144477735","fullName":"X"}`, status: 400, text: "Register already used in a contact of this unit."},
		{name: "insert same register other unit", path: "/insert_contact", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","type":"natural_person","register":"52998224725","fullName":"Maria B"}`, status: 200},
		{name: "insert bad birthDate", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"12345678909","fullName":"X","birthDate":"1990-12-31"}`, status: 400, text: "Invalid birthDate. Use DD/MM/YYYY."},
		{name: "insert bad state", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"12345678909","fullName":"X","state":"XX"}`, status: 400, text: "Invalid state. Use the two-letter abbreviation."},
		{name: "insert bad zip", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"12345678909","fullName":"X","zip_code":"123"}`, status: 400, text: "Invalid zip_code. Use 8 digits."},
		{name: "insert bad email", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"12345678909","fullName":"X","email":"not-an-email"}`, status: 400, text: "Invalid email."},
		{name: "insert wrong type register", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":52998224725,"fullName":"X"}`, status: 400, text: "Invalid parameter format"},
		{name: "insert bad access", path: "/insert_contact", body: `{"access_token":"{{revoked}}","unit_token":"{{unitA}}","type":"legal"}`, status: 403, text: "Invalid authentication data."},
		{name: "insert unknown unit", path: "/insert_contact", body: `{"access_token":"{{access}}","unit_token":"fcu_acme_ffff","type":"legal"}`, status: 404, text: "Unit not found."},
		{name: "insert too long", path: "/insert_contact", body: `{` + auth + `,"type":"natural_person","register":"12345678909","fullName":"` + longText(300) + `"}`, status: 400, text: "A text field is too long."},
		{name: "insert array body", path: "/insert_contact", body: `[{"type":"legal"}]`, status: 400, text: "Invalid JSON body."},

		// /update_contact
		{name: "update ok", path: "/get_contacts", before: []call{{"/update_contact", `{` + auth + `,"id_token":"{{contact2}}","phone":"(21) 99999-0000","observation":""}`}},
			body: `{` + auth + `,"register":"52998224725"}`, status: 200, golden: "contacts/update_ok"},
		{name: "update answer", path: "/update_contact", body: `{` + auth + `,"token":"{{contact2}}","fullName":"Maria S. Silva"}`, status: 200, golden: "contacts/update_answer"},
		{name: "update no fields", path: "/update_contact", body: `{` + auth + `,"id_token":"{{contact2}}"}`, status: 400, text: "No fields provided to update."},
		{name: "update missing id", path: "/update_contact", body: `{` + auth + `,"fullName":"X"}`, status: 400, text: "Missing required parameters."},
		{name: "update unknown", path: "/update_contact", body: `{` + auth + `,"id_token":"00000000-0000-4000-8000-999999999999","fullName":"X"}`, status: 404, text: "Contact not found or not updated."},
		{name: "update other unit's contact", path: "/update_contact", body: `{` + auth + `,"id_token":"{{contactB}}","fullName":"X"}`, status: 404, text: "Contact not found or not updated."},
		{name: "update other domain's unit", path: "/update_contact", body: `{"access_token":"{{otherAccess}}","unit_token":"{{unitC}}","id_token":"{{contact2}}","fullName":"X"}`, status: 404, text: "Contact not found or not updated."},
		{name: "update register taken", path: "/update_contact", body: `{` + auth + `,"id_token":"{{contact2}}","register":"111.444.777-35"}`, status: 400, text: "Register already used in a contact of this unit."},
		{name: "update register invalid", path: "/update_contact", body: `{` + auth + `,"id_token":"{{contact2}}","register":"12345678900"}`, status: 400, text: "Invalid CPF."},
		{name: "update to legal needs CNPJ", path: "/update_contact", body: `{` + auth + `,"id_token":"{{contact2}}","type":"legal","socialReason":"Maria ME"}`, status: 400, text: "Invalid CNPJ."},
		{name: "update to legal ok", path: "/update_contact", body: `{` + auth + `,"id_token":"{{contact2}}","type":"legal","register":"11222333000181","socialReason":"Maria ME"}`, status: 200},
		{name: "update clears full name", path: "/update_contact", body: `{` + auth + `,"id_token":"{{contact2}}","fullName":""}`, status: 400, text: "Full name is required for natural persons."},
		{name: "update bad access", path: "/update_contact", body: `{"access_token":"x","unit_token":"{{unitA}}","id_token":"{{contact2}}","fullName":"X"}`, status: 403, text: "Invalid authentication data."},

		// /enable_contact, /disable_contact
		{name: "disable hides", path: "/get_contacts", before: []call{{"/disable_contact", `{` + auth + `,"id_token":"{{contact1}}"}`}},
			body: `{` + auth + `}`, status: 200, check: wantCount(1)},
		{name: "disable answer", path: "/disable_contact", body: `{` + auth + `,"token":"{{contact1}}"}`, status: 200, golden: "contacts/disable_answer"},
		{name: "enable shows", path: "/get_contacts", before: []call{{"/enable_contact", `{` + auth + `,"token":"{{contactInactive}}"}`}},
			body: `{` + auth + `}`, status: 200, check: wantCount(3)},
		{name: "enable missing id", path: "/enable_contact", body: `{` + auth + `}`, status: 400, text: "Missing required parameters."},
		{name: "enable other unit", path: "/enable_contact", body: `{` + auth + `,"id_token":"{{contactB}}"}`, status: 404, text: "Contact not found or not updated."},
		{name: "disable other domain", path: "/disable_contact", body: `{"access_token":"{{otherAccess}}","unit_token":"{{unitC}}","id_token":"{{contact1}}"}`, status: 404, text: "Contact not found or not updated."},
	})
}

// wantCount checks the length of data.
func wantCount(n int) func(t *testing.T, r map[string]any) {
	return func(t *testing.T, r map[string]any) {
		t.Helper()
		data, _ := r["data"].([]any)
		if len(data) != n {
			t.Errorf("len(data) = %d, want %d: %v", len(data), n, r["data"])
		}
	}
}

func longText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}

// TestContactRegisterRace inserts one register from many goroutines: the
// UNIQUE index, not a pre-check, decides, so exactly one wins.
func TestContactRegisterRace(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	const n = 16
	codes := make(chan int, n)
	for i := 0; i < n; i++ {
		go func() {
			codes <- do(h, http.MethodPost, "/insert_contact", `{`+auth+`,"type":"natural_person","register":"12345678909","fullName":"Corrida"}`).Code
		}()
	}
	ok, dup := 0, 0
	for i := 0; i < n; i++ {
		switch <-codes {
		case 200:
			ok++
		case 400:
			dup++
		}
	}
	if ok != 1 || dup != n-1 {
		t.Fatalf("ok = %d, duplicates = %d", ok, dup)
	}
}

// FuzzContactValidation: whatever the fields, validation answers an error or
// a contact whose document is valid for its kind; it never panics.
func FuzzContactValidation(f *testing.F) {
	f.Add("legal", "12.ABC.345/01DE-35", "", "Nova Era", "sp", "01310-100", "")
	f.Add("natural_person", "529.982.247-25", "Maria", "", "", "", "31/12/1990")
	f.Add("x", "\x00", "\xff", "", "ZZ", "1", "99/99/9999")
	f.Fuzz(func(t *testing.T, typ, register, fullName, social, state, zip, birth string) {
		q := api.ContactRequest{Type: &typ, Register: &register, FullName: &fullName, SocialReason: &social, State: &state, ZipCode: &zip, BirthDate: &birth}
		var c store.ContactFields
		if err := q.Apply(&c); err != nil {
			return
		}
		switch c.Type {
		case "legal":
			if !brdoc.ValidCNPJ(c.Register) || c.SocialReason == "" {
				t.Fatalf("accepted legal %+v", c)
			}
		case "natural_person":
			if !brdoc.ValidCPF(c.Register) || c.FullName == "" {
				t.Fatalf("accepted person %+v", c)
			}
		default:
			t.Fatalf("accepted type %q", c.Type)
		}
		if c.ZipCode != "" && len(c.ZipCode) != 8 {
			t.Fatalf("accepted zip %q", c.ZipCode)
		}
	})
}

// TestEmailFormat: every address fincom accepts is one the document's
// `format: email` accepts, judged by an independent JSON Schema validator;
// what no mail system takes is refused.
func TestEmailFormat(t *testing.T) {
	t.Parallel()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("email.json", map[string]any{"type": "string", "format": "email"}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("email.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"maria@example.com", true},
		{"maria.silva+nf@empresa.com.br", true},
		{"o'neil@x-y.com.br", true},
		{"a@b.co", true},
		{"maria@localhost", false},
		{"maria@@example.com", false},
		{"maria @example.com", false},
		{".maria@example.com", false},
		{"maria.@example.com", false},
		{"ma..ria@example.com", false},
		{"maria@-example.com", false},
		{"maria@example.com.", false},
		{"joão@example.com", false},
		{`"maria"@example.com`, false},
		{"maria@exa_mple.com", false},
		{"<maria@example.com>", false},
	} {
		if got := registers.ValidEmail(tc.addr); got != tc.ok {
			t.Errorf("validEmail(%q) = %v, want %v", tc.addr, got, tc.ok)
		}
		if registers.ValidEmail(tc.addr) {
			if err := sch.Validate(tc.addr); err != nil {
				t.Errorf("%q is accepted but not a format email: %v", tc.addr, err)
			}
		}
	}
}

// TestRequestPatterns: a CPF, CNPJ, CEP, state, IBGE code, NCM, CFOP or access key is taken in every
// form the document's pattern admits (the contract check validates each
// accepted request against it) and refused in any other, in the route's
// own words.
func TestRequestPatterns(t *testing.T) {
	t.Parallel()
	contact := func(typ, register, zip string) string {
		name := `"fullName":"Ana"`
		if typ == "legal" {
			name = `"socialReason":"Beta SA"`
		}
		return `{` + auth + `,"type":"` + typ + `","register":"` + register + `",` + name + `,"zip_code":"` + zip + `"}`
	}
	expense := func(field string) string {
		return `{` + auth + `,"description":"Papelaria","value":"1026.56","due_date":"2026-11-05",` + field + `}`
	}
	product := func(ncm, cfop string) string {
		return `{` + auth + `,"description":"Arruela","type":"product","ncm":"` + ncm + `","cfop":"` + cfop + `"}`
	}
	run(t, []scenario{
		{name: "cpf masked", path: "/insert_contact", body: contact("natural_person", "314.159.265-90", "01310-100"), status: 200},
		{name: "cpf bare, cep with dot", path: "/insert_contact", body: contact("natural_person", " 31415926590 ", "01.310-100"), status: 200},
		{name: "cnpj alphanumeric masked", path: "/insert_contact", body: contact("legal", "12.ABC.345/01DE-35", "01310100"), status: 200},
		{name: "cnpj lower case bare", path: "/insert_contact", body: contact("legal", "12abc34501de35", ""), status: 200},
		{name: "cpf odd separators", path: "/insert_contact", body: contact("natural_person", "314_159_265_90", "01310-100"), status: 400, text: "Invalid CPF."},
		{name: "cnpj with spaces inside", path: "/insert_contact", body: contact("legal", "11 222 333 0001 81", "01310-100"), status: 400, text: "Invalid CNPJ."},
		{name: "cep with letters", path: "/insert_contact", body: contact("natural_person", "314.159.265-90", "01310-1OO"), status: 400, text: "Invalid zip_code. Use 8 digits."},
		{name: "state in lower case", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"state":" sp ","zip_code"`, 1), status: 200},
		{name: "state spelled out", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"state":"São Paulo","zip_code"`, 1), status: 400, text: "Invalid state. Use the two-letter abbreviation."},
		{name: "state not one of the 27", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"state":"XX","zip_code"`, 1), status: 400, text: "Invalid state. Use the two-letter abbreviation."},
		{name: "ibge code", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"city_ibge":" 3550308 ","zip_code"`, 1), status: 200},
		{name: "ibge code punctuated", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"city_ibge":"3550-308","zip_code"`, 1), status: 400, text: "Invalid city_ibge. Use a 7-digit IBGE municipality code."},
		{name: "ibge code of no municipality", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"city_ibge":"3599999","zip_code"`, 1), status: 400, text: "Invalid city_ibge. Use a 7-digit IBGE municipality code."},
		{name: "birth date", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"birthDate":" 01/02/1990 ","zip_code"`, 1), status: 200},
		{name: "birth date without zeros", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"birthDate":"1/2/1990","zip_code"`, 1), status: 400, text: "Invalid birthDate. Use DD/MM/YYYY."},
		{name: "contributor spaced", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"icms_contributor":" 9 ","zip_code"`, 1), status: 200},
		{name: "contributor behind a no-break space", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"icms_contributor":"\u00a09","zip_code"`, 1), status: 400, text: "Invalid icms_contributor. Use 1, 2 or 9."},
		{name: "phone of any form", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"phone":"+55 (11) 98765-4321 ramal 2","zip_code"`, 1), status: 200},
		{name: "phone past its length", path: "/insert_contact", body: strings.Replace(contact("natural_person", "314.159.265-90", "01310-100"), `"zip_code"`, `"phone":"`+strings.Repeat("1", 256)+`","zip_code"`, 1), status: 400, text: "A text field is too long."},
		{name: "ncm dotted, cfop dotted", path: "/insert_product_or_service", body: product("7318.15.00", "5.102"), status: 200},
		{name: "ncm with dashes", path: "/insert_product_or_service", body: product("7318-15-00", "5102"), status: 400, text: "Invalid ncm. Use 8 digits."},
		{name: "cfop with a letter", path: "/insert_product_or_service", body: product("73181500", "51O2"), status: 400, text: "Invalid cfop. Use 4 digits starting with 1 to 7."},
		{name: "median by masked cnpj", path: "/get_category_median", body: `{` + auth + `,"cnpj":"11.444.777/0001-61"}`, status: 200},
		{name: "median by spaced cnpj", path: "/get_category_median", body: `{` + auth + `,"cnpj":"11 444 777 0001 61"}`, status: 400, text: "Invalid CNPJ."},
		{name: "entry's line printed", path: "/insert_expense", body: expense(`"barcode":"00190.00009 01149.718601 68524.522114 6 75860000102656"`), status: 200},
		{name: "entry's line with a letter", path: "/insert_expense", body: expense(`"barcode":"O0190000090114971860168524522114675860000102656"`), status: 400, text: "Invalid barcode. Send a boleto's linha digitável or bar code with valid check digits."},
		{name: "entry's key in groups", path: "/insert_expense", body: expense(`"access_key":"3517 0458 7165 2300 0119 5500 1000 0000 1210 0012 3458"`), status: 200},
		{name: "entry's key after words", path: "/insert_expense", body: expense(`"access_key":"NF 35170458716523000119550010000000121000123458"`), status: 400, text: "Invalid access_key. Send the 44 digits with a valid check digit."},
		{name: "key in groups", path: "/insert_purchase_order_by_access_key", body: `{` + auth + `,"access_key":"3526 1111 2223 3300 0181 5500 1000 0000 0711 2345 6788"}`, status: 200},
		{name: "key with dots", path: "/insert_purchase_order_by_access_key", body: `{` + auth + `,"access_key":"3526.1111.2223.3300.0181.5500.1000.0000.0711.2345.6788"}`, status: 422, text: "Invalid access key: use the 44 digits with a valid check digit."},
	})
}

// TestRegisterShapesAgree: a CPF or CNPJ has one shape wherever a request
// sends one (a contact's register, the category median's cnpj).
func TestRegisterShapesAgree(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	shapes := map[string]any{}
	for _, b := range documentedBodies(t, s, s.Handler()) {
		switch b.route.Path {
		case "/insert_contact":
			shapes["register"] = b.props["register"]["pattern"]
		case "/get_category_median":
			shapes["cnpj"] = b.props["cnpj"]["pattern"]
		}
	}
	if shapes["register"] == nil || shapes["register"] != shapes["cnpj"] {
		t.Fatalf("the shapes differ: %v", shapes)
	}
}

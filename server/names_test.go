package server

import (
	"testing"
)

// names returns the value of field in each row of a listing's data.
func names(t *testing.T, r map[string]any, field string) []string {
	t.Helper()
	data, _ := r["data"].([]any)
	out := make([]string, 0, len(data))
	for _, row := range data {
		name, _ := row.(map[string]any)[field].(string)
		out = append(out, name)
	}
	return out
}

// wantBefore checks that, in a listing, the row named first comes before
// the row named second.
func wantBefore(field, first, second string) func(t *testing.T, r map[string]any) {
	return func(t *testing.T, r map[string]any) {
		t.Helper()
		at := map[string]int{}
		for i, n := range names(t, r, field) {
			at[n] = i
		}
		i, ok1 := at[first]
		j, ok2 := at[second]
		if !ok1 || !ok2 || i > j {
			t.Fatalf("want %q before %q in %q", first, second, names(t, r, field))
		}
	}
}

// TestNamesInPortugueseOrder: listings order names as a Brazilian reads
// them, letters before accents before case, not by bytes: "abacaxi" comes
// before "Banana", "Ébano" before "farinha" and "Crédit" before "Crefisa".
func TestNamesInPortugueseOrder(t *testing.T) {
	t.Parallel()
	products := []call{
		{"/insert_product_or_service", `{` + auth + `,"description":"Banana","type":"product","value":1}`},
		{"/insert_product_or_service", `{` + auth + `,"description":"farinha","type":"product","value":1}`},
		{"/insert_product_or_service", `{` + auth + `,"description":"abacaxi","type":"product","value":1}`},
		{"/insert_product_or_service", `{` + auth + `,"description":"Ébano","type":"product","value":1}`},
	}
	contacts := []call{
		{"/insert_contact", `{` + auth + `,"type":"natural_person","register":"314.159.265-90","fullName":"Érica Souza"}`},
		{"/insert_contact", `{` + auth + `,"type":"natural_person","register":"271.828.182-05","fullName":"eduardo lima"}`},
		{"/insert_contact", `{` + auth + `,"type":"natural_person","register":"161.803.398-05","fullName":"Fábio Dias"}`},
	}
	run(t, []scenario{
		{name: "banks", path: "/get_banks", body: `{` + auth + `,"group_bank":"CB"}`, status: 200,
			check: wantBefore("name", "BANCO CRÉDIT AGRICOLE BRASIL S.A.", "Banco Crefisa S.A.")},
		{name: "products lowercase first letter", path: "/get_products_and_services", before: products, body: `{` + auth + `}`, status: 200,
			check: wantBefore("description", "abacaxi", "Banana")},
		{name: "products accent after letter", path: "/get_products_and_services", before: products, body: `{` + auth + `}`, status: 200,
			check: wantBefore("description", "Ébano", "farinha")},
		{name: "contacts", path: "/get_contacts", before: contacts, body: `{` + auth + `}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				wantBefore("contact_name", "eduardo lima", "Érica Souza")(t, r)
				wantBefore("contact_name", "Érica Souza", "Fábio Dias")(t, r)
			}},
	})
}

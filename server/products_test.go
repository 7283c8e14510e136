package server

import "testing"

const textIBSCBS = "Invalid IBS and CBS classification: details.field is the field at fault, details.message says why."

// wantDetailField: the refusal's details name the field.
func wantDetailField(field string) func(t *testing.T, r map[string]any) {
	return func(t *testing.T, r map[string]any) {
		t.Helper()
		if d, _ := r["details"].(map[string]any); d == nil || d["field"] != field || d["message"] == "" {
			t.Fatalf("details %v, want field %s", r["details"], field)
		}
	}
}

func TestProducts(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "get all", path: "/get_products_and_services", body: `{` + auth + `}`, status: 200, golden: "products/get_all"},
		{name: "get services", path: "/get_products_and_services", body: `{` + auth + `,"type":"service"}`, status: 200, check: wantCount(1)},
		{name: "get type all", path: "/get_products_and_services", body: `{` + auth + `,"type":"all"}`, status: 200, check: wantCount(2)},
		{name: "get search", path: "/get_products_and_services", body: `{` + auth + `,"search":"parafuso"}`, status: 200, check: wantCount(1)},
		{name: "get bad type", path: "/get_products_and_services", body: `{` + auth + `,"type":"goods"}`, status: 400, text: "Invalid type. Use product, service or all."},
		{name: "get missing", path: "/get_products_and_services", body: `{"unit_token":"{{unitA}}"}`, status: 400, text: "Missing parameters"},
		// Spec, Authentication 8: this route answers 401 "Invalid token".
		{name: "get bad token", path: "/get_products_and_services", body: `{"access_token":"{{revoked}}","unit_token":"{{unitA}}"}`, status: 401, text: "Invalid token"},
		{name: "get unknown unit", path: "/get_products_and_services", body: `{"access_token":"{{access}}","unit_token":"{{unitC}}"}`, status: 401, text: "Invalid token"},

		{name: "stock items", path: "/list_stock_items_by_unit", body: `{` + auth + `}`, status: 200, golden: "products/stock_items"},
		{name: "stock items missing", path: "/list_stock_items_by_unit", body: `{"access_token":"{{access}}"}`, status: 403, text: "Invalid data"},
		{name: "stock items bad token", path: "/list_stock_items_by_unit", body: `{"access_token":"x","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
		{name: "stock items other unit", path: "/list_stock_items_by_unit", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}"}`, status: 200, golden: "products/stock_items_empty"},

		{name: "insert product", path: "/list_stock_items_by_unit", before: []call{{"/insert_product_or_service", `{` + auth + `,"description":"Cimento 50kg","type":"product","monetary_value":"39.9","ncm":"2523.29.10","cfop":"5.102","unit":"SC"}`}},
			body: `{` + auth + `}`, status: 200, golden: "products/insert_then_stock"},
		{name: "insert answer", path: "/insert_product_or_service", body: `{` + auth + `,"description":"Visita técnica","type":"service","value":120}`, status: 200, golden: "products/insert_answer"},
		{name: "insert missing type", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X"}`, status: 400, text: "Missing parameters"},
		{name: "insert missing description", path: "/insert_product_or_service", body: `{` + auth + `,"type":"product"}`, status: 400, text: "Missing parameters"},
		{name: "insert bad type", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"thing"}`, status: 400, text: "Invalid type. Use product or service."},
		{name: "insert bad ncm", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","ncm":"123"}`, status: 400, text: "Invalid ncm. Use 8 digits."},
		{name: "insert bad cfop", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","cfop":"9102"}`, status: 400, text: "Invalid cfop. Use 4 digits starting with 1 to 7."},
		{name: "insert bad usage", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","usage_type":"11"}`, status: 400, text: "Invalid usage_type. Use a SPED item type code (00 to 10, or 99)."},
		{name: "insert negative", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","monetary_value":-5}`, status: 400, text: "Invalid monetary_value. It must not be negative."},
		{name: "insert bad unit", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","unit":"CAIXAS10"}`, status: 400, text: "Invalid unit. Use up to 6 characters."},
		{name: "insert NaN", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","monetary_value":"NaN"}`, status: 400, text: "Invalid parameter format"},
		{name: "insert huge number", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","monetary_value":123456789012345678901234567890123}`, status: 400, text: "Invalid parameter format"},

		// The tax reform's codes: a product's class goes in the stock
		// listing; a wrong code is a 422 naming its field.
		{name: "insert ibs cbs class", path: "/list_stock_items_by_unit", before: []call{{"/insert_product_or_service", `{` + auth + `,"description":"Feijão carioca 1 kg","type":"product","monetary_value":"8.99","ncm":"07133319","cfop":"5102","unit":"UN","ibs_cbs_cst":"200","ibs_cbs_class":"200034"}`}},
			body: `{` + auth + `}`, status: 200, golden: "products/insert_ibs_cbs"},
		{name: "insert bad ibs cbs cst", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","ibs_cbs_cst":"20"}`, status: 422, text: textIBSCBS, check: wantDetailField("ibs_cbs_cst")},
		{name: "insert unknown ibs cbs class", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","ibs_cbs_class":"999999"}`, status: 422, text: textIBSCBS, check: wantDetailField("ibs_cbs_class")},
		{name: "insert class of another cst", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","ibs_cbs_cst":"000","ibs_cbs_class":"200034"}`, status: 422, text: textIBSCBS, check: wantDetailField("ibs_cbs_class")},
		{name: "insert a service's class on a product", path: "/insert_product_or_service", body: `{` + auth + `,"description":"X","type":"product","ibs_cbs_class":"200028"}`, status: 422, text: textIBSCBS, check: wantDetailField("ibs_cbs_class")},
		{name: "update to another kind keeps the class checked", path: "/update_product_or_service", before: []call{{"/update_product_or_service", `{` + auth + `,"id_token":"{{product1}}","ibs_cbs_class":"200034"}`}},
			body: `{` + auth + `,"id_token":"{{product1}}","type":"service"}`, status: 422, text: textIBSCBS, check: wantDetailField("ibs_cbs_class")},
		{name: "update bad ibs cbs cst", path: "/update_product_or_service", body: `{` + auth + `,"id_token":"{{product1}}","ibs_cbs_cst":"999"}`, status: 422, text: textIBSCBS, check: wantDetailField("ibs_cbs_cst")},
		{name: "update then list", path: "/get_products_and_services", before: []call{{"/update_product_or_service", `{` + auth + `,"id_token":"{{product1}}","monetary_value":0.4,"description":"Parafuso 10mm inox"}`}},
			body: `{` + auth + `,"type":"product"}`, status: 200, golden: "products/update_then_list"},
		{name: "update kind resets usage", path: "/list_stock_items_by_unit", before: []call{{"/update_product_or_service", `{` + auth + `,"token":"{{service1}}","type":"product"}`}},
			body: `{` + auth + `}`, status: 200, golden: "products/update_kind"},
		{name: "update no fields", path: "/update_product_or_service", body: `{` + auth + `,"id_token":"{{product1}}"}`, status: 400, text: "No fields provided to update"},
		{name: "update other unit", path: "/update_product_or_service", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"{{product1}}","description":"X"}`, status: 404, text: "Product or service not found or not updated."},
		{name: "update bad ncm", path: "/update_product_or_service", body: `{` + auth + `,"id_token":"{{product1}}","ncm":"1"}`, status: 400, text: "Invalid ncm. Use 8 digits."},
		{name: "disable hides", path: "/get_products_and_services", before: []call{{"/disable_product_or_service", `{` + auth + `,"id_token":"{{product1}}"}`}},
			body: `{` + auth + `}`, status: 200, check: wantCount(1)},
		{name: "enable answer", path: "/enable_product_or_service", body: `{` + auth + `,"id_token":"{{product1}}"}`, status: 200, golden: "products/enable_answer"},
		{name: "enable other domain", path: "/enable_product_or_service", body: `{"access_token":"{{otherAccess}}","unit_token":"{{unitC}}","id_token":"{{product1}}"}`, status: 404, text: "Product or service not found or not updated."},
	})
}

func TestCatalogues(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "payment methods", path: "/list_payments_method", body: `{` + auth + `}`, status: 200, golden: "payment_methods/list"},
		{name: "payment methods bad token", path: "/list_payments_method", body: `{"access_token":"x","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
		{name: "users", path: "/get_users", body: `{` + auth + `}`, status: 200, golden: "users/list"},
		{name: "users missing", path: "/get_users", body: `{}`, status: 400, text: "Missing parameters"},
	})
}

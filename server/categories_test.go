package server

import "testing"

func TestCategories(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "get in", path: "/get_categories", body: `{` + auth + `,"type":"in"}`, status: 200, golden: "categories/get_in"},
		{name: "get out search", path: "/get_categories", body: `{` + auth + `,"type":"out","search":"energia"}`, status: 200, golden: "categories/get_out_search"},
		{name: "get search note", path: "/get_categories", body: `{` + auth + `,"type":"out","search":"pessoal"}`, status: 200, check: wantCount(4)},
		{name: "get missing type", path: "/get_categories", body: `{` + auth + `}`, status: 400, text: "Missing parameters"},
		{name: "get bad type", path: "/get_categories", body: `{` + auth + `,"type":"both"}`, status: 400, text: "Invalid type. Use in or out."},
		{name: "get missing tokens", path: "/get_categories", body: `{"type":"in"}`, status: 400, text: "Missing parameters"},
		{name: "get bad token", path: "/get_categories", body: `{"access_token":"{{revoked}}","unit_token":"{{unitA}}","type":"in"}`, status: 403, text: "Invalid data"},
		{name: "get unit B has no custom", path: "/get_categories", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","type":"in","search":"Assinaturas"}`, status: 200, check: wantCount(0)},

		{name: "groups in", path: "/list_group_categories", body: `{` + auth + `,"type":"in"}`, status: 200, golden: "categories/groups_in"},
		{name: "groups search", path: "/list_group_categories", body: `{` + auth + `,"type":"out","search":"custo"}`, status: 200, check: wantCount(2)},
		{name: "groups missing type", path: "/list_group_categories", body: `{` + auth + `}`, status: 400, text: "Missing parameters"},
		{name: "groups unknown unit", path: "/list_group_categories", body: `{"access_token":"{{access}}","unit_token":"{{unitC}}","type":"in"}`, status: 403, text: "Invalid data"},

		{name: "insert ok", path: "/insert_category", body: `{` + auth + `,"module_type":"out","category":"Frete","note":"Fretes de entrega","category_master":206}`, status: 200, golden: "categories/insert_ok"},
		{name: "insert then listed", path: "/get_categories", before: []call{{"/insert_category", `{` + auth + `,"type":"out","name":"Frete","description":"Fretes","id_token_category_master":"206"}`}},
			body: `{` + auth + `,"type":"out","search":"Frete"}`, status: 200, golden: "categories/insert_then_listed"},
		{name: "insert without group", path: "/insert_category", body: `{` + auth + `,"module_type":"in","category":"Doações"}`, status: 200},
		{name: "insert missing name", path: "/insert_category", body: `{` + auth + `,"module_type":"in"}`, status: 400, text: "Missing parameters"},
		{name: "insert missing type", path: "/insert_category", body: `{` + auth + `,"category":"X"}`, status: 400, text: "Missing parameters"},
		{name: "insert bad type", path: "/insert_category", body: `{` + auth + `,"module_type":"x","category":"X"}`, status: 400, text: "Invalid module_type. Use in or out."},
		{name: "insert duplicate name", path: "/insert_category", body: `{` + auth + `,"module_type":"in","category":"assinaturas"}`, status: 400, text: "Category already exists for this type."},
		{name: "insert group of other type", path: "/insert_category", body: `{` + auth + `,"module_type":"in","category":"X","category_master":205}`, status: 400, text: "Category group not found for this type."},
		{name: "insert unknown group", path: "/insert_category", body: `{` + auth + `,"module_type":"in","category":"X","category_master":999}`, status: 400, text: "Category group not found for this type."},
		{name: "insert bad group format", path: "/insert_category", body: `{` + auth + `,"module_type":"in","category":"X","category_master":"abc"}`, status: 400, text: "Invalid parameter format"},
		{name: "insert unknown unit", path: "/insert_category", body: `{"access_token":"{{access}}","unit_token":"{{unitC}}","module_type":"in","category":"X"}`, status: 404, text: "Unit not found"},

		{name: "update ok", path: "/get_categories", before: []call{{"/update_category", `{` + auth + `,"id_token":"{{category1}}","category":"Assinaturas SaaS","note":""}`}},
			body: `{` + auth + `,"type":"in","search":"SaaS"}`, status: 200, golden: "categories/update_ok"},
		{name: "update no fields", path: "/update_category", body: `{` + auth + `,"id_token":"{{category1}}"}`, status: 400, text: "No fields provided to update"},
		{name: "update missing id", path: "/update_category", body: `{` + auth + `,"category":"X"}`, status: 400, text: "Missing parameters"},
		{name: "update type keeps wrong group", path: "/update_category", body: `{` + auth + `,"token":"{{category1}}","module_type":"out"}`, status: 400, text: "Category group not found for this type."},
		{name: "update type with group", path: "/update_category", body: `{` + auth + `,"token":"{{category1}}","module_type":"out","category_master":205}`, status: 200},
		{name: "update other unit", path: "/update_category", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"{{category1}}","category":"X"}`, status: 404, text: "Category not found or not updated."},

		{name: "disable hides", path: "/get_categories", before: []call{{"/disable_category", `{` + auth + `,"id_token":"{{category1}}"}`}},
			body: `{` + auth + `,"type":"in","search":"Assinaturas"}`, status: 200, check: wantCount(0)},
		{name: "disable keeps name taken", path: "/insert_category", before: []call{{"/disable_category", `{` + auth + `,"id_token":"{{category1}}"}`}},
			body: `{` + auth + `,"module_type":"in","category":"Assinaturas"}`, status: 400, text: "Category already exists for this type."},
		{name: "enable answer", path: "/enable_category", body: `{` + auth + `,"token":"{{category1}}"}`, status: 200, golden: "categories/enable_answer"},
		{name: "enable unknown", path: "/enable_category", body: `{` + auth + `,"token":"nope"}`, status: 404, text: "Category not found or not updated."},
	})
}

package server

import "testing"

func TestProjects(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "get ok", path: "/get_projects", body: `{` + auth + `}`, status: 200, golden: "projects/get_ok"},
		{name: "get other unit empty", path: "/get_projects", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}"}`, status: 200, check: wantCount(0)},
		{name: "get missing", path: "/get_projects", body: `{"access_token":"{{access}}"}`, status: 400, text: "Missing parameters"},
		{name: "insert ok", path: "/get_projects", before: []call{{"/insert_project", `{` + auth + `,"name":"Reforma","observation":"2º andar","budget":"7500.255"}`}},
			body: `{` + auth + `}`, status: 200, golden: "projects/insert_then_listed"},
		{name: "insert answer", path: "/insert_project", body: `{` + auth + `,"name":"Reforma"}`, status: 200, golden: "projects/insert_answer"},
		{name: "insert missing name", path: "/insert_project", body: `{` + auth + `,"budget":10}`, status: 400, text: "Missing parameters"},
		{name: "insert blank name", path: "/insert_project", body: `{` + auth + `,"name":"   "}`, status: 400, text: "Missing parameters"},
		{name: "insert negative budget", path: "/insert_project", body: `{` + auth + `,"name":"X","budget":-1}`, status: 400, text: "Invalid budget. It must not be negative."},
		{name: "insert budget exponent", path: "/insert_project", body: `{` + auth + `,"name":"X","budget":1e400}`, status: 400, text: "Invalid parameter format"},
		{name: "insert budget text", path: "/insert_project", body: `{` + auth + `,"name":"X","budget":"abc"}`, status: 400, text: "Invalid parameter format"},
		{name: "update ok", path: "/get_projects", before: []call{{"/update_project", `{` + auth + `,"id_token":"{{project1}}","budget":0.1}`}},
			body: `{` + auth + `}`, status: 200, golden: "projects/update_ok"},
		{name: "update no fields", path: "/update_project", body: `{` + auth + `,"id_token":"{{project1}}"}`, status: 400, text: "No fields provided to update"},
		{name: "update other unit", path: "/update_project", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"{{project1}}","name":"X"}`, status: 404, text: "Project not found or not updated."},
		{name: "update other domain", path: "/update_project", body: `{"access_token":"{{otherAccess}}","unit_token":"{{unitC}}","id_token":"{{project1}}","name":"X"}`, status: 404, text: "Project not found or not updated."},
		{name: "disable hides", path: "/get_projects", before: []call{{"/disable_project", `{` + auth + `,"id_token":"{{project1}}"}`}},
			body: `{` + auth + `}`, status: 200, check: wantCount(0)},
		{name: "enable answer", path: "/enable_project", body: `{` + auth + `,"token":"{{project1}}"}`, status: 200, golden: "projects/enable_answer"},
		{name: "disable missing id", path: "/disable_project", body: `{` + auth + `}`, status: 400, text: "Missing parameters"},
	})
}

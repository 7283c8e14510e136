package server

import "testing"

func TestCRM(t *testing.T) {
	t.Parallel()
	full := `{` + auth + `,"id_contact":"{{contact1}}","record_date":"2026-11-20","communication_type":"whatsapp","lifecycle_phase":"lead",
		"lead_status":"qualificado","description":"Pediu proposta","contact_success":true,"next_contact_datetime":"2026-12-01T14:30:00-03:00",
		"next_contact_reason":"Enviar proposta"}`
	run(t, []scenario{
		{name: "insert answer", path: "/insert_crm", body: full, status: 200, golden: "crm/insert_answer"},
		{name: "listed", path: "/list_crm", before: []call{{"/insert_crm", full}, {"/insert_crm", `{` + auth + `,"description":"","lead_status":""}`}},
			body: `{` + auth + `}`, status: 200, golden: "crm/listed"},
		{name: "minimal defaults", path: "/list_crm", before: []call{{"/insert_crm", `{` + auth + `}`}}, body: `{` + auth + `}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				rec := r["data"].([]any)[0].(map[string]any)
				if rec["record_date"] != "2026-11-22" || rec["contact_success"] != false || rec["description"] != nil || rec["id_contact"] != nil || rec["active"] != true {
					t.Errorf("defaults %v", rec)
				}
			}},
		{name: "naive datetime is Sao Paulo", path: "/list_crm", before: []call{{"/insert_crm", `{` + auth + `,"next_contact_datetime":"2026-12-01 14:30"}`}},
			body: `{` + auth + `}`, status: 200, check: func(t *testing.T, r map[string]any) {
				if got := r["data"].([]any)[0].(map[string]any)["next_contact_datetime"]; got != "2026-12-01T14:30:00-03:00" {
					t.Errorf("got %v", got)
				}
			}},
		{name: "missing tokens", path: "/insert_crm", body: `{"unit_token":"{{unitA}}"}`, status: 400, text: "Missing required parameters."},
		{name: "bad tokens", path: "/insert_crm", body: `{"access_token":"{{revoked}}","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid access_token or unit_token"},
		{name: "unknown unit", path: "/insert_crm", body: `{"access_token":"{{access}}","unit_token":"{{unitC}}"}`, status: 403, text: "Invalid access_token or unit_token"},
		{name: "inactive contact", path: "/insert_crm", body: `{` + auth + `,"id_contact":"{{contactInactive}}"}`, status: 403, text: "id_contact not found, inactive, or not linked to unit_token"},
		{name: "other unit contact", path: "/insert_crm", body: `{` + auth + `,"id_contact":"{{contactB}}"}`, status: 403, text: "id_contact not found, inactive, or not linked to unit_token"},
		{name: "bad record date", path: "/insert_crm", body: `{` + auth + `,"record_date":"20/11/2026"}`, status: 400, text: "Invalid record_date. Use YYYY-MM-DD."},
		{name: "bad next contact", path: "/insert_crm", body: `{` + auth + `,"next_contact_datetime":"amanhã"}`, status: 400, text: "Invalid next_contact_datetime. Use ISO 8601, e.g. 2026-12-01T14:30:00-03:00."},
		{name: "bad success type", path: "/insert_crm", body: `{` + auth + `,"contact_success":"yes"}`, status: 400, text: "Invalid parameter format"},
		{name: "update", path: "/list_crm", before: []call{{"/insert_crm", full}, {"/update_crm", `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001","lead_status":"ganho","description":""}`}},
			body: `{` + auth + `}`, status: 200, check: func(t *testing.T, r map[string]any) {
				rec := r["data"].([]any)[0].(map[string]any)
				if rec["lead_status"] != "ganho" || rec["description"] != nil || rec["communication_type"] != "whatsapp" {
					t.Errorf("updated %v", rec)
				}
			}},
		{name: "update unknown", path: "/update_crm", body: `{` + auth + `,"id_token":"x","lead_status":"y"}`, status: 404, text: "CRM record not found or not updated."},
		{name: "disable hides", path: "/list_crm", before: []call{{"/insert_crm", full}, {"/disable_crm", `{` + auth + `,"token":"00000000-0000-4000-8001-000000000001"}`}},
			body: `{` + auth + `}`, status: 200, check: wantCount(0)},
		{name: "enable restores", path: "/list_crm", before: []call{{"/insert_crm", full}, {"/disable_crm", `{` + auth + `,"token":"00000000-0000-4000-8001-000000000001"}`},
			{"/enable_crm", `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`}},
			body: `{` + auth + `}`, status: 200, check: wantCount(1)},
		{name: "enable unknown", path: "/enable_crm", body: `{` + auth + `,"id_token":"x"}`, status: 404, text: "CRM record not found or not updated."},
		{name: "list by contact", path: "/list_crm", before: []call{{"/insert_crm", full}, {"/insert_crm", `{` + auth + `}`}},
			body: `{` + auth + `,"id_contact":"{{contact1}}"}`, status: 200, check: wantCount(1)},
	})
}

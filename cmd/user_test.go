package cmd

import (
	"strings"
	"testing"
)

// The operator gives roles with `user create/set --role R [--unit U]`;
// `user list` shows them, the last owner is kept and each change is in
// the audit log under the CLI.
func TestCLIUserRoles(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	cli(t, schema, data, "domain", "create", "acme")
	a := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--json"))["unit_token"].(string)
	b := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Filial", "--json"))["unit_token"].(string)
	cli(t, schema, data, "user", "create", "acme", "--name", "Olga", "--email", "olga@acme.com")
	u := jsonOut(t, cli(t, schema, data, "user", "create", "acme", "--name", "Caio", "--email", "caio@contabil.com", "--role", "accountant", "--unit", a, "--json"))
	if u["role"] != "accountant" || u["unit_token"] != a {
		t.Fatalf("user create --role: %v", u)
	}
	for _, bad := range [][]string{
		{"user", "create", "acme", "--name", "X", "--email", "x@acme.com", "--role", "boss"},
		{"user", "create", "acme", "--name", "X", "--email", "x@acme.com", "--unit", "fcu_acme_nope"},
		{"user", "set", "acme", "caio@contabil.com", "--role", "admin"},
		{"user", "set", "acme", "nobody@acme.com", "--role", "sales"},
		{"user", "set", "acme", "caio@contabil.com"},
	} {
		if err := cliErr(t, schema, data, bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	set := jsonOut(t, cli(t, schema, data, "user", "set", "acme", "caio@contabil.com", "--role", "finance", "--unit", b, "--json"))
	if roles := set["roles"].([]any); len(roles) != 2 {
		t.Fatalf("user set --unit: %v", set)
	}
	if out := cli(t, schema, data, "user", "list", "acme"); !strings.Contains(out, "Caio <caio@contabil.com>\taccountant of unit "+a+", finance of unit "+b) ||
		!strings.Contains(out, "Olga <olga@acme.com>\towner of every unit") {
		t.Fatalf("user list:\n%s", out)
	}
	if err := cliErr(t, schema, data, "user", "set", "acme", "olga@acme.com", "--role", "sales"); err == nil || !strings.Contains(err.Error(), "last owner") {
		t.Fatalf("the last owner demoted: %v", err)
	}
	cli(t, schema, data, "user", "set", "acme", "caio@contabil.com", "--role", "none", "--unit", b)
	if out := cli(t, schema, data, "user", "list", "acme"); !strings.Contains(out, "Caio <caio@contabil.com>\taccountant of unit "+a+"\n") {
		t.Fatalf("user list after none:\n%s", out)
	}
	if out := cli(t, schema, data, "audit", "acme"); strings.Count(out, "cli:user set") != 2 || !strings.Contains(out, "cli:user create") {
		t.Fatalf("role changes not audited:\n%s", out)
	}
}

// `--role none --unit U` holds back from U a user whose every-unit role
// would reach it.
func TestCLIUserHeldBack(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	cli(t, schema, data, "domain", "create", "acme")
	a := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--json"))["unit_token"].(string)
	cli(t, schema, data, "user", "create", "acme", "--name", "Olga", "--email", "olga@acme.com")
	cli(t, schema, data, "user", "create", "acme", "--name", "Fábio", "--email", "fabio@acme.com", "--role", "finance")
	cli(t, schema, data, "user", "set", "acme", "fabio@acme.com", "--role", "none", "--unit", a)
	if out := cli(t, schema, data, "user", "list", "acme"); !strings.Contains(out, "Fábio <fabio@acme.com>\tfinance of every unit, no access to unit "+a) {
		t.Fatalf("user list:\n%s", out)
	}
}

package portal

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// notPortal are refusals no portal page can meet: of routes and commands
// the portal does not offer (remittances, PIX automático, test mode's
// parties, voiding numbers).
var notPortal = map[string]bool{
	"store.ErrNothingToRemit": true, "billing.ErrRecurrencePeriod": true, "billing.ErrRecurrencePayer": true,
	"billing.ErrRecurrenceReceiver": true, "billing.ErrNoTestPSP": true, "billing.ErrNoWaitingRecurrence": true,
	"invoicing.ErrVoidingRefused": true, "invoicing.ErrNoRehearsal": true,
}

// TestEveryRefusalInPortuguese: every refusal the business packages
// declare with a text of the API's (problem.New) is said in Portuguese by
// the portal (portalWords, or a form's own refusals), unless no portal
// page can meet it (notPortal).
func TestEveryRefusalInPortuguese(t *testing.T) {
	declared := regexp.MustCompile(`(?m)^\s*(?:var\s+)?(Err[A-Za-z]+)\s*=\s*problem\.New\(`)
	var words []byte
	for _, f := range []string{"portal_words.go", "portal_contacts.go", "portal_products.go", "portal_contracts.go", "portal_import.go", "portal_settings.go", "portal_transactions.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		words = append(words, b...)
	}
	for pkg, dir := range map[string]string{"store": "../../store", "billing": "../billing", "invoicing": "../invoicing", "registers": "../registers", "sales": "../sales", "settings": "../settings", "ledger": "../ledger"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if matched, _ := filepath.Match("*_test.go", filepath.Base(f)); matched {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range declared.FindAllSubmatch(src, -1) {
				name := pkg + "." + string(m[1])
				if notPortal[name] {
					continue
				}
				if !regexp.MustCompile(`\{` + regexp.QuoteMeta(name) + `,`).Match(words) {
					t.Errorf("%s (%s) has no Portuguese in the portal", name, filepath.Base(f))
				}
			}
		}
	}
}

package apipix

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateBody: a charge with a due date as the API Pix publishes it
// is valid; one without its debtor, with an amount not in the schema's
// form, or with an unknown status, is not.
func TestValidateBody(t *testing.T) {
	t.Parallel()
	good := `{"calendario":{"dataDeVencimento":"2026-12-10","validadeAposVencimento":30},"devedor":{"cnpj":"11444777000161","nome":"Alfa Comércio Ltda"},` +
		`"valor":{"original":"35.00","multa":{"modalidade":2,"valorPerc":"2.00"},"juros":{"modalidade":2,"valorPerc":"1.00"}},"chave":"pix@acme.com.br",` +
		`"solicitacaoPagador":"Pedido 12"}`
	if err := ValidateBody("PUT", "/cobv/{txid}", []byte(good)); err != nil {
		t.Fatalf("a valid charge: %v", err)
	}
	person := strings.Replace(good, `"cnpj":"11444777000161"`, `"cpf":"52998224725"`, 1)
	if err := ValidateBody("PUT", "/cobv/{txid}", []byte(person)); err != nil {
		t.Fatalf("a person's charge: %v", err)
	}
	if err := ValidateBody("PUT", "/cobv/{txid}", []byte(strings.Replace(person, "52998224725", "5299822472", 1))); err == nil {
		t.Fatal("a CPF of 10 digits accepted")
	}
	for name, body := range map[string]string{
		"no debtor": strings.Replace(good, `"devedor":{"cnpj":"11444777000161","nome":"Alfa Comércio Ltda"},`, "", 1),
		"amount":    strings.Replace(good, `"original":"35.00"`, `"original":"35"`, 1),
		"not json":  `{`,
	} {
		if err := ValidateBody("PUT", "/cobv/{txid}", []byte(body)); !errors.Is(err, ErrMessage) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := ValidateBody("PATCH", "/cobv/{txid}", []byte(`{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`)); err != nil {
		t.Errorf("removal: %v", err)
	}
	if err := ValidateBody("PATCH", "/cobv/{txid}", []byte(`{"status":"PAGA"}`)); err == nil {
		t.Error("an unknown status accepted")
	}

	// A recurrence and its request as the document's own examples write
	// them (recBody1, solicRecBody1): valid, though the document requires
	// idRec and retentativa of the one and pagador of the other.
	rec := `{"vinculo":{"contrato":"63100862","devedor":{"cpf":"45164632481","nome":"Fulano de Tal"},"objeto":"Streaming"},` +
		`"calendario":{"dataInicial":"2024-04-01","periodicidade":"MENSAL"},"valor":{"valorRec":"35.00"},"politicaRetentativa":"NAO_PERMITE","loc":108}`
	if err := ValidateBody("POST", "/rec", []byte(rec)); err != nil {
		t.Errorf("a recurrence: %v", err)
	}
	if err := ValidateBody("POST", "/rec", []byte(strings.Replace(rec, `"politicaRetentativa":"NAO_PERMITE",`, "", 1))); err == nil {
		t.Error("a recurrence without politicaRetentativa accepted")
	}
	solic := `{"idRec":"RN123456782024011577825445612","calendario":{"dataExpiracaoSolicitacao":"2023-12-20T12:17:11.926Z"},` +
		`"destinatario":{"agencia":"2569","conta":"550689","cpf":"15231470190","ispbParticipante":"91193552"}}`
	if err := ValidateBody("POST", "/solicrec", []byte(solic)); err != nil {
		t.Errorf("a recurrence's request: %v", err)
	}
	if err := ValidateBody("POST", "/solicrec", []byte(strings.Replace(solic, `"idRec":"RN123456782024011577825445612",`, "", 1))); err == nil {
		t.Error("a request without idRec accepted")
	}
}

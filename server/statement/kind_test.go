package statement

import "testing"

// TestKind: a debit's memo that reads as a bank's tariff is a fee, a
// credit's that reads as a yield is a yield, whatever their case and
// accents; a payment or a PIX is neither.
func TestKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		memo   string
		credit bool
		want   string
	}{
		{"TARIFA PACOTE SERVICOS", false, KindFee},
		{"Tar Manutenção Conta", false, KindFee},
		{"CESTA DE RELACIONAMENTO", false, KindFee},
		{"TARIFA PACOTE SERVICOS", true, ""},
		{"REND PAGO APLIC AUT MAIS", true, KindYield},
		{"Rendimentos poupança", true, KindYield},
		{"PIX RECEBIDO MARIA", true, ""},
		{"PAGTO BOLETO ENERGIA", false, ""},
		{"REND PAGO APLIC AUT MAIS", false, ""},
	} {
		if got := Kind(c.memo, c.credit); got != c.want {
			t.Errorf("Kind(%q, %v) = %q, want %q", c.memo, c.credit, got, c.want)
		}
	}
}

package invoicing

import "testing"

// TestReadEvent: a distributed cancellation of a note (resEvento, or the
// procEventoNFe whole; 110111, or 110112 by substitution) names the note
// it cancels; another event, or one without a valid key, cancels nothing.
func TestReadEvent(t *testing.T) {
	const key = "35170458716523000119550010000000121000123458"
	for _, c := range []struct {
		doc     string
		cancels bool
	}{
		{`<resEvento xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><cOrgao>35</cOrgao><CNPJ>58716523000119</CNPJ><chNFe>` + key +
			`</chNFe><dhEvento>2017-04-21T10:00:00-03:00</dhEvento><tpEvento>110111</tpEvento><nSeqEvento>1</nSeqEvento></resEvento>`, true},
		{`<procEventoNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.00"><evento versao="1.00"><infEvento><chNFe>` + key +
			`</chNFe><tpEvento>110112</tpEvento></infEvento></evento></procEventoNFe>`, true},
		{`<resEvento xmlns="http://www.portalfiscal.inf.br/nfe"><chNFe>` + key + `</chNFe><tpEvento>110110</tpEvento></resEvento>`, false},
		{`<resEvento xmlns="http://www.portalfiscal.inf.br/nfe"><chNFe>123</chNFe><tpEvento>110111</tpEvento></resEvento>`, false},
		{`not xml`, false},
	} {
		got, cancels := readEvent([]byte(c.doc))
		if cancels != c.cancels || (c.cancels && got != key) {
			t.Errorf("%.60s: %q %v, want %v", c.doc, got, cancels, c.cancels)
		}
	}
	// A summary needs its key and value; its situation is said.
	s, err := readSummary([]byte(`<resNFe xmlns="http://www.portalfiscal.inf.br/nfe"><chNFe>` + key + `</chNFe><CNPJ>58716523000119</CNPJ>` +
		`<xNome>Fornecedor</xNome><dhEmi>2017-04-20T10:00:00-03:00</dhEmi><vNF>12.345</vNF><cSitNFe>3</cSitNFe></resNFe>`))
	if err != nil || s.Situation != "cancelled" || s.Total.StringFixed(2) != "12.35" || s.IssueDate != "2017-04-20" {
		t.Errorf("a summary: %+v %v", s, err)
	}
	if _, err := readSummary([]byte(`<resNFe xmlns="http://www.portalfiscal.inf.br/nfe"><chNFe>` + key + `</chNFe><vNF>-1</vNF></resNFe>`)); err == nil {
		t.Error("a summary of a negative value was read")
	}
}

package local

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// distribute answers NFeDistribuicaoDFe: the summaries it was given, once
// (138), then 137, nothing new after the NSU asked for.
func (a *Authority) distribute(msg []byte, now time.Time) []byte {
	var q struct {
		NSU string `xml:"distNSU>ultNSU"`
	}
	xml.Unmarshal(msg, &q)
	n, _ := strconv.ParseInt(q.NSU, 10, 64)
	if len(a.Summaries) > 0 || len(a.Cancellations) > 0 {
		var lot strings.Builder
		add := func(schema, format string, args ...any) {
			n++
			var z bytes.Buffer
			gz := gzip.NewWriter(&z)
			fmt.Fprintf(gz, format, args...)
			gz.Close()
			fmt.Fprintf(&lot, `<docZip NSU="%015d" schema="%s">%s</docZip>`, n, schema, base64.StdEncoding.EncodeToString(z.Bytes()))
		}
		for _, key := range a.Summaries {
			add("resNFe_v1.01.xsd", `<resNFe xmlns="%s" versao="1.01"><chNFe>%s</chNFe><CNPJ>%s</CNPJ><xNome>Emitente</xNome><IE>110042490114</IE>`+
				`<dhEmi>%s</dhEmi><tpNF>1</tpNF><vNF>10.00</vNF><dhRecbto>%s</dhRecbto><nProt>135260000000001</nProt><cSitNFe>1</cSitNFe></resNFe>`,
				nfeNS, key, key[6:20], dh(now), dh(now))
		}
		for _, key := range a.Cancellations {
			add("resEvento_v1.01.xsd", `<resEvento xmlns="%s" versao="1.01"><cOrgao>%s</cOrgao><CNPJ>%s</CNPJ><chNFe>%s</chNFe><dhEvento>%s</dhEvento>`+
				`<tpEvento>110111</tpEvento><nSeqEvento>1</nSeqEvento><xEvento>Cancelamento</xEvento><dhRecbto>%s</dhRecbto><nProt>135260000000002</nProt></resEvento>`,
				nfeNS, key[:2], key[6:20], key, dh(now), dh(now))
		}
		a.Summaries, a.Cancellations = nil, nil
		return []byte(fmt.Sprintf(`<retDistDFeInt xmlns="%s" versao="1.01"><tpAmb>2</tpAmb><verAplic>%s</verAplic><cStat>138</cStat>`+
			`<xMotivo>Documento localizado</xMotivo><dhResp>%s</dhResp><ultNSU>%015d</ultNSU><maxNSU>%015d</maxNSU><loteDistDFeInt>%s</loteDistDFeInt></retDistDFeInt>`,
			nfeNS, verAplic, dh(now), n, n, lot.String()))
	}
	nsu := fmt.Sprintf("%015d", n)
	return []byte(fmt.Sprintf(`<retDistDFeInt xmlns="%s" versao="1.01"><tpAmb>2</tpAmb><verAplic>%s</verAplic><cStat>137</cStat>`+
		`<xMotivo>Nenhum documento localizado</xMotivo><dhResp>%s</dhResp><ultNSU>%s</ultNSU><maxNSU>%s</maxNSU></retDistDFeInt>`,
		nfeNS, verAplic, dh(now), nsu, nsu))
}

package local

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"time"

	"fincom/server/fiscal"
)

// void answers NFeInutilizacao4: the request's signature (297), its
// environment (252), a number of the range a note it holds carries (241)
// or voided already (256), then 102 with its protocol; a number voided is
// never authorized after (206).
func (a *Authority) void(msg []byte, now time.Time) []byte {
	var q struct {
		Inf struct {
			ID     string `xml:"Id,attr"`
			TpAmb  string `xml:"tpAmb"`
			CUF    string `xml:"cUF"`
			Ano    string `xml:"ano"`
			CNPJ   string `xml:"CNPJ"`
			Mod    string `xml:"mod"`
			Serie  string `xml:"serie"`
			NNFIni string `xml:"nNFIni"`
			NNFFin string `xml:"nNFFin"`
		} `xml:"infInut"`
	}
	xml.Unmarshal(msg, &q)
	code, reason, protocol := 102, "Inutilização de número homologado", ""
	from, _ := strconv.Atoi(q.Inf.NNFIni)
	to, _ := strconv.Atoi(q.Inf.NNFFin)
	numbers := []string{}
	for n := from; n <= to && len(numbers) <= 1000; n++ {
		numbers = append(numbers, q.Inf.CNPJ+"/"+q.Inf.Mod+"/"+q.Inf.Serie+"/"+strconv.Itoa(n))
	}
	if _, err := fiscal.Verify(msg, q.Inf.ID); err != nil {
		code, reason = 297, "Rejeição: Assinatura difere do calculado"
	} else if q.Inf.TpAmb != "2" {
		code, reason = 252, "Rejeição: Ambiente informado diverge do Ambiente de recebimento"
	}
	for _, number := range numbers {
		if code != 102 {
			break
		}
		if _, used := a.numbers[number]; used {
			code, reason = 241, "Rejeição: Um número da faixa já foi utilizado"
		} else if a.voided[number] {
			code, reason = 256, "Rejeição: Uma NF-e da faixa já está inutilizada na Base de dados da SEFAZ"
		}
	}
	if code == 102 {
		if a.voided == nil {
			a.voided = map[string]bool{}
		}
		for _, number := range numbers {
			a.voided[number] = true
		}
		a.seq++
		protocol = fmt.Sprintf("<nProt>135%02d%010d</nProt>", now.Year()%100, a.seq)
	}
	return []byte(fmt.Sprintf(`<retInutNFe xmlns="%s" versao="4.00"><infInut><tpAmb>2</tpAmb><verAplic>%s</verAplic><cStat>%d</cStat>`+
		`<xMotivo>%s</xMotivo><cUF>%s</cUF><ano>%s</ano><CNPJ>%s</CNPJ><mod>%s</mod><serie>%s</serie><nNFIni>%s</nNFIni><nNFFin>%s</nNFFin>`+
		`<dhRecbto>%s</dhRecbto>%s</infInut></retInutNFe>`, nfeNS, verAplic, code, esc(reason), esc(q.Inf.CUF), esc(q.Inf.Ano), esc(q.Inf.CNPJ),
		esc(q.Inf.Mod), esc(q.Inf.Serie), esc(q.Inf.NNFIni), esc(q.Inf.NNFFin), dh(now), protocol))
}

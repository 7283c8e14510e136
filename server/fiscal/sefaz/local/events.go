package local

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"time"

	"fincom/server/fiscal"
)

// The events it registers: cancellations (110111, 110112 by
// substitution), correction letters (110110), recipients' manifestations
// and EPECs (at the national environment's address).

// eventIn is what the authority reads of an event's lot.
type eventIn struct {
	Lot string `xml:"idLote"`
	Ev  struct {
		Inf struct {
			ID       string `xml:"Id,attr"`
			Org      string `xml:"cOrgao"`
			Key      string `xml:"chNFe"`
			Event    string `xml:"tpEvento"`
			Sequence string `xml:"nSeqEvento"`
			Desc     string `xml:"detEvento>descEvento"`
			Protocol string `xml:"detEvento>nProt"`
			At       string `xml:"dhEvento"`
		} `xml:"infEvento"`
	} `xml:"evento"`
}

// readEvent reads an event's lot and judges what every event needs: the
// lot holds one event (225) whose signature verifies (297); 0 when both
// hold.
func readEvent(msg []byte) (eventIn, int, string) {
	var q eventIn
	xml.Unmarshal(msg, &q)
	start, end := bytes.Index(msg, []byte("<evento")), bytes.LastIndex(msg, []byte("</evento>"))
	if start < 0 || end < start {
		return q, 225, "Rejeição: Falha no Schema XML"
	}
	if _, err := fiscal.Verify(msg[start:end+len("</evento>")], q.Ev.Inf.ID); err != nil {
		return q, 297, "Rejeição: Assinatura difere do calculado"
	}
	return q, 0, ""
}

// eventAnswer is the retEnvEvento of a processed lot of one event, with
// the event's code and reason and, when registered, its protocol.
func eventAnswer(q eventIn, code int, reason, event, desc, protocol string, now time.Time) []byte {
	return eventAnswerWith(q, code, reason, event, desc, "", protocol, now)
}

// eventAnswerWith is eventAnswer with what an event's answer states after
// its sequence (an EPEC's cOrgaoAutor).
func eventAnswerWith(q eventIn, code int, reason, event, desc, afterSeq, protocol string, now time.Time) []byte {
	if protocol != "" {
		protocol = "<nProt>" + protocol + "</nProt>"
	}
	return []byte(fmt.Sprintf(`<retEnvEvento xmlns="%s" versao="1.00"><idLote>%s</idLote><tpAmb>2</tpAmb><verAplic>%s</verAplic><cOrgao>%s</cOrgao>`+
		`<cStat>128</cStat><xMotivo>Lote de Evento Processado</xMotivo><retEvento versao="1.00"><infEvento><tpAmb>2</tpAmb><verAplic>%s</verAplic>`+
		`<cOrgao>%s</cOrgao><cStat>%d</cStat><xMotivo>%s</xMotivo><chNFe>%s</chNFe><tpEvento>%s</tpEvento><xEvento>%s</xEvento>`+
		`<nSeqEvento>1</nSeqEvento>%s<dhRegEvento>%s</dhRegEvento>%s</infEvento></retEvento></retEnvEvento>`,
		nfeNS, q.Lot, verAplic, q.Ev.Inf.Org, verAplic, q.Ev.Inf.Org, code, esc(reason), q.Ev.Inf.Key, event, esc(desc), afterSeq, dh(now), protocol))
}

// event answers NFeRecepcaoEvento4 for a cancellation: the event's
// signature, a note it authorized (217), its protocol (222), a note
// cancelled already (573, duplicate event), then 135.
func (a *Authority) event(msg []byte, now time.Time) []byte {
	q, code, reason := readEvent(msg)
	protocol := ""
	n, ok := a.notes[q.Ev.Inf.Key]
	switch {
	case code != 0:
	case !ok:
		code, reason = 217, "Rejeição: NF-e não consta na base de dados da SEFAZ"
	case n.protocol != q.Ev.Inf.Protocol:
		code, reason = 222, "Rejeição: Protocolo de Autorização de Uso difere do cadastrado"
	case n.cancelled:
		code, reason = 573, "Rejeição: Duplicidade de Evento"
	case a.pastWindow(q.Ev.Inf.Key, n.issued, q.Ev.Inf.At):
		code, reason = 501, "Rejeição: Prazo de Cancelamento superior ao previsto na Legislação"
	default:
		n.cancelled = true
		code, reason, protocol = 135, "Evento registrado e vinculado a NF-e", a.protocol("135", now)
	}
	return eventAnswer(q, code, reason, "110111", "Cancelamento registrado", protocol, now)
}

// pastWindow says an event at at cancels the note of key issued at issued
// after its window: an NF-e's 24 hours, an NFC-e's NFCeCancelWindow (30
// minutes by default, São Paulo's rule). A time it cannot read closes
// nothing.
func (a *Authority) pastWindow(key string, issued time.Time, at string) bool {
	t, err := time.Parse(time.RFC3339, at)
	if err != nil || issued.IsZero() {
		return false
	}
	window := 24 * time.Hour
	if key[20:22] == "65" {
		window = cmp.Or(a.NFCeCancelWindow, 30*time.Minute)
	}
	return t.Sub(issued) > window
}

// manifest answers a recipient's manifestation as AN does: its signature,
// a second one of the same event (573), then 135 for a note it holds, 136
// (registered, not linked) for one it does not.
func (a *Authority) manifest(msg []byte, now time.Time) []byte {
	q, code, reason := readEvent(msg)
	protocol := ""
	id := q.Ev.Inf.Key + "/" + q.Ev.Inf.Event
	switch {
	case code != 0:
	case a.manifested[id]:
		code, reason = 573, "Rejeição: Duplicidade de Evento"
	default:
		code, reason = 135, "Evento registrado e vinculado a NF-e"
		if _, ok := a.notes[q.Ev.Inf.Key]; !ok {
			code, reason = 136, "Evento registrado, mas não vinculado a NF-e"
		}
		if a.manifested == nil {
			a.manifested = map[string]bool{}
		}
		a.manifested[id] = true
		protocol = a.protocol("191", now)
	}
	return eventAnswer(q, code, reason, q.Ev.Inf.Event, q.Ev.Inf.Desc, protocol, now)
}

// substitute answers an NFC-e's cancellation by substitution: the
// event's signature, a note it authorized (217) with that protocol (222),
// not cancelled (573), a substitute it authorized of the same issuer
// (217 of the substitute), then 135.
func (a *Authority) substitute(msg []byte, now time.Time) []byte {
	q, code, reason := readEvent(msg)
	var ref struct {
		Key string `xml:"evento>infEvento>detEvento>chNFeRef"`
	}
	xml.Unmarshal(msg, &ref)
	protocol := ""
	n, ok := a.notes[q.Ev.Inf.Key]
	_, substitute := a.notes[ref.Key]
	switch {
	case code != 0:
	case !ok:
		code, reason = 217, "Rejeição: NF-e não consta na base de dados da SEFAZ"
	case n.protocol != q.Ev.Inf.Protocol:
		code, reason = 222, "Rejeição: Protocolo de Autorização de Uso difere do cadastrado"
	case n.cancelled:
		code, reason = 573, "Rejeição: Duplicidade de Evento"
	case !substitute || len(ref.Key) != 44 || ref.Key[6:20] != q.Ev.Inf.Key[6:20]:
		code, reason = 217, "Rejeição: NFC-e substituta não consta na base de dados da SEFAZ"
	default:
		n.cancelled = true
		code, reason, protocol = 135, "Evento registrado e vinculado a NF-e", a.protocol("135", now)
	}
	return eventAnswer(q, code, reason, "110112", "Cancelamento por substituicao", protocol, now)
}

// epec answers an EPEC as the national environment does: its signature,
// a second one of the same note (573), then 136 (registered; the note
// comes to its authorizer later).
func (a *Authority) epec(msg []byte, now time.Time) []byte {
	q, code, reason := readEvent(msg)
	protocol := ""
	id := q.Ev.Inf.Key + "/110140"
	switch {
	case code != 0:
	case a.manifested[id]:
		code, reason = 573, "Rejeição: Duplicidade de Evento"
	default:
		if a.manifested == nil {
			a.manifested = map[string]bool{}
		}
		a.manifested[id] = true
		code, reason, protocol = 136, "Evento registrado, mas não vinculado a NF-e", a.protocol("191", now)
	}
	return eventAnswerWith(q, code, reason, "110140", "EPEC registrado", "<cOrgaoAutor>"+q.Ev.Inf.Key[:2]+"</cOrgaoAutor>", protocol, now)
}

// correct answers a correction letter: a note it authorized (217) and did
// not cancel (218), a sequence not used (573), then 135.
func (a *Authority) correct(msg []byte, now time.Time) []byte {
	q, code, reason := readEvent(msg)
	protocol := ""
	n, ok := a.notes[q.Ev.Inf.Key]
	id := q.Ev.Inf.Key + "/" + q.Ev.Inf.Sequence
	switch {
	case code != 0:
	case !ok:
		code, reason = 217, "Rejeição: NF-e não consta na base de dados da SEFAZ"
	case n.cancelled:
		code, reason = 218, "Rejeição: NF-e já está cancelada na base de dados da SEFAZ"
	case a.corrected[id]:
		code, reason = 573, "Rejeição: Duplicidade de Evento"
	default:
		if a.corrected == nil {
			a.corrected = map[string]bool{}
		}
		a.corrected[id] = true
		code, reason, protocol = 135, "Evento registrado e vinculado a NF-e", a.protocol("135", now)
	}
	return eventAnswer(q, code, reason, "110110", "Carta de Correção registrada", protocol, now)
}

// protocol numbers the next event it registers: its prefix (135 a state's,
// 191 the national environment's), the year, a sequence. The caller holds
// a.mu.
func (a *Authority) protocol(prefix string, now time.Time) string {
	a.seq++
	return fmt.Sprintf("%s%02d%010d", prefix, now.Year()%100, a.seq)
}

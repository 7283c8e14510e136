package sefaz

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal"
)

// Authorization is the authority's answer to a note: its protocol (the
// protNFe as the authority wrote it, kept whole in the nfeProc), or a
// refusal of the note or of its lot.
type Authorization struct {
	Authorizer string
	// Code and Reason are the note's cStat and xMotivo (100 or 150:
	// authorized; 110, 301 to 303: denied, the number spent), or the
	// lot's when the lot itself was refused.
	Code     int
	Reason   string
	Protocol string
	// ProtNFe is the authority's protNFe element, to keep in the nfeProc.
	ProtNFe []byte
}

// Authorized says whether the note is authorized (100, or 150 when
// authorized late).
func (a Authorization) Authorized() bool { return a.Code == 100 || a.Code == 150 }

// ErrMessage is a message fincom will not send: invalid by its schema,
// or of a key that is not one.
var ErrMessage = errors.New("the message is not valid")

// ErrReceived is a lot the authority received (103) whose verdict could
// not be read: the note may be authorized, and is asked for by its key.
var ErrReceived = errors.New("the authority received the lot but its verdict was not read")

// ErrBusy is the authority's 656 (Consumo Indevido): fincom asked too
// often and must wait before asking again, not insist.
var ErrBusy = errors.New("the authority refuses requests for a while (656 Consumo Indevido): wait before asking again")

// retEnviNFe and retConsReciNFe are what Authorize reads of the answers.
type retEnviNFe struct {
	XMLName xml.Name
	CStat   int    `xml:"cStat"`
	XMotivo string `xml:"xMotivo"`
	NRec    string `xml:"infRec>nRec"`
	TMed    int    `xml:"infRec>tMed"`
	Prot    []struct {
		Inner []byte     `xml:",innerxml"`
		Attrs []xml.Attr `xml:",any,attr"`
		ChNFe string     `xml:"infProt>chNFe"`
		CStat int        `xml:"infProt>cStat"`
		XMot  string     `xml:"infProt>xMotivo"`
		NProt string     `xml:"infProt>nProt"`
	} `xml:"protNFe"`
}

// Authorize sends one signed note (NFe, as fiscal.Sign wrote it) to the
// authorizer of its state and model for env, in a lot of one
// (NFeAutorizacao4): synchronously where the authority answers at once
// (indSinc 1, lot cStat 104), else by the receipt it gives (103), asked
// with NFeRetAutorizacao4 until the lot is processed. Before sending again
// a note whose answer was lost, ask Consult: the key is the same, and a
// second sending of an authorized note is a 204, never a second note.
func (c *Client) Authorize(ctx context.Context, cert certs.Certificate, signed []byte, key, env string) (Authorization, error) {
	if len(key) != 44 || strings.Trim(key, "0123456789") != "" {
		return Authorization{}, fmt.Errorf("%w: %q is not an access key (44 digits)", ErrMessage, key)
	}
	model := key[20:22]
	auth, url, err := c.serviceOf(key, env, "NFeAutorizacao4")
	if err != nil {
		return Authorization{}, err
	}
	// The lot's id: the note's number and code, unique enough for a lot
	// of one and the same on a retry.
	lot := strings.TrimLeft(key[25:34]+key[35:43], "0")
	if lot == "" {
		lot = "1"
	}
	var msg bytes.Buffer
	msg.WriteString(`<enviNFe xmlns="` + nfeNS + `" versao="4.00"><idLote>` + lot + `</idLote><indSinc>1</indSinc>`)
	msg.Write(withoutDeclaration(signed))
	msg.WriteString(`</enviNFe>`)
	if err := fiscal.ValidateSchema("enviNFe", msg.Bytes()); err != nil {
		return Authorization{}, fmt.Errorf("%w: enviNFe: %v", ErrMessage, err)
	}
	out, err := c.call(ctx, cert, url, "NFeAutorizacao4", msg.Bytes())
	if err != nil {
		return Authorization{}, err
	}
	if err := fiscal.ValidateSchema("retEnviNFe", out); err != nil {
		return Authorization{}, fmt.Errorf("%w: retEnviNFe: %v", ErrAnswer, err)
	}
	var r retEnviNFe
	if err := xml.Unmarshal(out, &r); err != nil || r.XMLName.Space != nfeNS || r.XMLName.Local != "retEnviNFe" {
		return Authorization{}, fmt.Errorf("%w: not a retEnviNFe", ErrAnswer)
	}
	switch r.CStat {
	case 104: // Lote processado
		return protocolOf(auth, key, r, out)
	case 103: // Lote recebido: ask by the receipt
		res, err := c.receipt(ctx, cert, model, auth, env, key, r.NRec, r.TMed)
		if err != nil {
			// The lot is at the authority: whatever kept its verdict from
			// us, the note may be authorized.
			return res, fmt.Errorf("%w (receipt %s): %w", ErrReceived, r.NRec, err)
		}
		return res, nil
	case 656:
		return Authorization{}, ErrBusy
	case 108, 109: // the service is stopped: nothing was judged
		return Authorization{}, fmt.Errorf("%w: %d %s", ErrUnavailable, r.CStat, Shown(r.XMotivo))
	}
	return Authorization{Authorizer: auth, Code: r.CStat, Reason: r.XMotivo}, nil
}

// protocolOf reads the note's protNFe out of a processed lot.
func protocolOf(auth, key string, r retEnviNFe, raw []byte) (Authorization, error) {
	for _, p := range r.Prot {
		if p.ChNFe != key {
			continue
		}
		prot, err := element(raw, "protNFe", key)
		if err != nil {
			return Authorization{}, err
		}
		return Authorization{Authorizer: auth, Code: p.CStat, Reason: p.XMot, Protocol: p.NProt, ProtNFe: prot}, nil
	}
	return Authorization{}, fmt.Errorf("%w: the processed lot has no protocol of key %s", ErrAnswer, key)
}

// element is the whole element name (with its namespace declaration) of
// an answer that holds key, as the authority wrote it.
func element(raw []byte, name, key string) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(raw))
	for {
		start := d.InputOffset()
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: no %s of key %s", ErrAnswer, name, key)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != name || se.Name.Space != nfeNS {
			continue
		}
		if err := d.Skip(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrAnswer, err)
		}
		el := raw[start:d.InputOffset()]
		if !bytes.Contains(el, []byte(key)) {
			continue
		}
		if !bytes.Contains(el[:bytes.IndexByte(el, '>')], []byte("xmlns=")) {
			// Nested in the answer, it inherited the namespace: say it.
			el = append([]byte(`<`+name+` xmlns="`+nfeNS+`"`), el[len(name)+1:]...)
		}
		return el, nil
	}
}

// receipt asks NFeRetAutorizacao4 for a lot received for processing,
// waiting the authority's mean time between asks, until it is processed
// or the context ends.
func (c *Client) receipt(ctx context.Context, cert certs.Certificate, model, auth, env, key, nRec string, tMed int) (Authorization, error) {
	url, err := c.Endpoints.Lookup(model, auth, env, "NFeRetAutorizacao4")
	if err != nil {
		return Authorization{}, err
	}
	msg := []byte(`<consReciNFe xmlns="` + nfeNS + `" versao="4.00"><tpAmb>` + tpAmbOf(env) + `</tpAmb><nRec>` + nRec + `</nRec></consReciNFe>`)
	if err := fiscal.ValidateSchema("consReciNFe", msg); err != nil {
		return Authorization{}, fmt.Errorf("consReciNFe: %w", err)
	}
	wait := time.Duration(min(max(tMed, 1), 30)) * time.Second
	if c.ReceiptWait > 0 {
		wait = c.ReceiptWait
	}
	for range 10 {
		select {
		case <-ctx.Done():
			return Authorization{}, ctx.Err()
		case <-time.After(wait):
		}
		out, err := c.call(ctx, cert, url, "NFeRetAutorizacao4", msg)
		if err != nil {
			return Authorization{}, err
		}
		if err := fiscal.ValidateSchema("retConsReciNFe", out); err != nil {
			return Authorization{}, fmt.Errorf("%w: retConsReciNFe: %v", ErrAnswer, err)
		}
		var r retEnviNFe
		if err := xml.Unmarshal(out, &r); err != nil || r.XMLName.Space != nfeNS || r.XMLName.Local != "retConsReciNFe" {
			return Authorization{}, fmt.Errorf("%w: not a retConsReciNFe", ErrAnswer)
		}
		switch r.CStat {
		case 104:
			return protocolOf(auth, key, r, out)
		case 105: // Lote em processamento
			continue
		case 656:
			return Authorization{}, ErrBusy
		}
		// 106 (not found), 108/109 (stopped), …: nothing said of the
		// note.
		return Authorization{}, fmt.Errorf("the authority did not say the lot's verdict (%d %s)", r.CStat, Shown(r.XMotivo))
	}
	return Authorization{}, fmt.Errorf("the lot of receipt %s is still being processed: ask again later", nRec)
}

// Cancellation is a request to cancel an authorized note (event 110111).
type Cancellation struct {
	Key, Protocol, CNPJ string
	Reason              string // 15 to 255 characters
	At                  time.Time
}

// Event is the authority's answer to an event: 135 (registered and
// linked to the note) or 155 (registered late), with its protocol, or a
// refusal of the event or of its lot.
type Event struct {
	Authorizer string `json:"authorizer"`
	Code       int    `json:"cStat"`
	Reason     string `json:"xMotivo"`
	Protocol   string `json:"nProt,omitempty"`
	// RetEvento is the authority's retEvento, to keep with the event.
	RetEvento []byte `json:"-"`
	// Signed is the event as sent.
	Signed []byte `json:"-"`
}

// Registered says whether the authority registered the event: 135, 155
// (late), 136 (registered, the note not linked: the national
// environment's answer to a manifestation or an EPEC of a note it does not
// hold yet), or 124 (EPEC authorized).
func (e Event) Registered() bool {
	return e.Code == 124 || e.Code == 135 || e.Code == 136 || e.Code == 155
}

// retEnvEvento is what Cancel reads of the answer.
type retEnvEvento struct {
	XMLName xml.Name
	CStat   int    `xml:"cStat"`
	XMotivo string `xml:"xMotivo"`
	Ret     []struct {
		ChNFe string `xml:"infEvento>chNFe"`
		CStat int    `xml:"infEvento>cStat"`
		XMot  string `xml:"infEvento>xMotivo"`
		NProt string `xml:"infEvento>nProt"`
	} `xml:"retEvento"`
}

// Cancel asks the note's authorizer to register its cancellation (event
// 110111, NFeRecepcaoEvento4), the event signed with the unit's
// certificate.
func (c *Client) Cancel(ctx context.Context, cert certs.Certificate, x Cancellation, env string) (Event, error) {
	reason := strings.Join(strings.Fields(x.Reason), " ")
	if n := len([]rune(reason)); n < 15 || n > 255 {
		return Event{}, errors.New("the cancellation's reason needs 15 to 255 characters")
	}
	if len(x.Key) != 44 || strings.Trim(x.Key, "0123456789") != "" {
		return Event{}, fmt.Errorf("%q is not an access key (44 digits)", x.Key)
	}
	auth, url, err := c.serviceOf(x.Key, env, "NFeRecepcaoEvento4")
	if err != nil {
		return Event{}, err
	}
	id := "ID110111" + x.Key + "01"
	var just bytes.Buffer
	if err := xml.EscapeText(&just, []byte(reason)); err != nil {
		return Event{}, err
	}
	ev := fmt.Sprintf(`<evento xmlns="%s" versao="1.00"><infEvento Id="%s"><cOrgao>%s</cOrgao><tpAmb>%s</tpAmb><CNPJ>%s</CNPJ>`+
		`<chNFe>%s</chNFe><dhEvento>%s</dhEvento><tpEvento>110111</tpEvento><nSeqEvento>1</nSeqEvento><verEvento>1.00</verEvento>`+
		`<detEvento versao="1.00"><descEvento>Cancelamento</descEvento><nProt>%s</nProt><xJust>%s</xJust></detEvento></infEvento></evento>`,
		nfeNS, id, x.Key[:2], tpAmbOf(env), x.CNPJ, x.Key, x.At.In(brt).Format("2006-01-02T15:04:05-07:00"), x.Protocol, just.String())
	return c.sendEvent(ctx, cert, url, auth, x.Key, id, ev, x.At, "envEventoCancNFe", "retEnvEventoCancNFe")
}

// sendEvent signs an event, sends it in a lot of one to url
// (NFeRecepcaoEvento4), each message held to its schema (send, ret), and
// answers the authority's answer to it.
func (c *Client) sendEvent(ctx context.Context, cert certs.Certificate, url, auth, key, id, ev string, at time.Time, send, ret string) (Event, error) {
	signed, err := fiscal.Sign([]byte(ev), id, cert)
	if err != nil {
		return Event{}, fmt.Errorf("sign the event: %w", err)
	}
	signed = withoutDeclaration(signed)
	msg := []byte(`<envEvento xmlns="` + nfeNS + `" versao="1.00"><idLote>` + strconv.FormatInt(at.Unix(), 10) + `</idLote>` + string(signed) + `</envEvento>`)
	if err := fiscal.ValidateSchema(send, msg); err != nil {
		return Event{}, fmt.Errorf("%w: envEvento: %v", ErrMessage, err)
	}
	out, err := c.call(ctx, cert, url, "NFeRecepcaoEvento4", msg)
	if err != nil {
		return Event{}, err
	}
	if err := fiscal.ValidateSchema(ret, out); err != nil {
		return Event{}, fmt.Errorf("%w: retEnvEvento: %v", ErrAnswer, err)
	}
	var r retEnvEvento
	if err := xml.Unmarshal(out, &r); err != nil || r.XMLName.Space != nfeNS || r.XMLName.Local != "retEnvEvento" {
		return Event{}, fmt.Errorf("%w: not a retEnvEvento", ErrAnswer)
	}
	if r.CStat == 656 {
		return Event{}, ErrBusy
	}
	if r.CStat != 128 { // Lote de Evento Processado
		return Event{Authorizer: auth, Code: r.CStat, Reason: r.XMotivo, Signed: signed}, nil
	}
	for _, e := range r.Ret {
		if e.ChNFe != key {
			continue
		}
		ret, err := element(out, "retEvento", key)
		if err != nil {
			return Event{}, err
		}
		return Event{Authorizer: auth, Code: e.CStat, Reason: e.XMot, Protocol: e.NProt, RetEvento: ret, Signed: signed}, nil
	}
	return Event{}, fmt.Errorf("%w: the processed lot has no event of key %s", ErrAnswer, key)
}

// Correction is a correction letter (carta de correção, event 110110) of
// an authorized note: the text (15 to 1,000 characters) replaces every
// earlier one, and each letter of a note takes the next sequence (1 to 20).
type Correction struct {
	Key, CNPJ string
	Text      string
	Sequence  int
	At        time.Time
}

// condUso is the correction letter's conditions of use, as the schema
// spells them (the form without accents).
const condUso = "A Carta de Correcao e disciplinada pelo paragrafo 1o-A do art. 7o do Convenio S/N, de 15 de dezembro de 1970 e pode ser " +
	"utilizada para regularizacao de erro ocorrido na emissao de documento fiscal, desde que o erro nao esteja relacionado com: I - as " +
	"variaveis que determinam o valor do imposto tais como: base de calculo, aliquota, diferenca de preco, quantidade, valor da operacao " +
	"ou da prestacao; II - a correcao de dados cadastrais que implique mudanca do remetente ou do destinatario; III - a data de emissao ou de saida."

// Correct sends a correction letter to the note's authorizer
// (NFeRecepcaoEvento4), signed with the issuer's certificate: 135
// registered, or a refusal (573: that sequence was used).
func (c *Client) Correct(ctx context.Context, cert certs.Certificate, x Correction, env string) (Event, error) {
	text := strings.Join(strings.Fields(x.Text), " ")
	switch n := len([]rune(text)); {
	case n < 15 || n > 1000:
		return Event{}, fmt.Errorf("%w: a correction needs 15 to 1,000 characters", ErrMessage)
	case x.Sequence < 1 || x.Sequence > 20:
		return Event{}, fmt.Errorf("%w: a note takes correction letters 1 to 20", ErrMessage)
	case len(x.Key) != 44 || strings.Trim(x.Key, "0123456789") != "":
		return Event{}, fmt.Errorf("%w: %q is not an access key (44 digits)", ErrMessage, x.Key)
	}
	auth, url, err := c.serviceOf(x.Key, env, "NFeRecepcaoEvento4")
	if err != nil {
		return Event{}, err
	}
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(text))
	seq := strconv.Itoa(x.Sequence)
	id := fmt.Sprintf("ID110110%s%02d", x.Key, x.Sequence)
	ev := fmt.Sprintf(`<evento xmlns="%s" versao="1.00"><infEvento Id="%s"><cOrgao>%s</cOrgao><tpAmb>%s</tpAmb><CNPJ>%s</CNPJ>`+
		`<chNFe>%s</chNFe><dhEvento>%s</dhEvento><tpEvento>110110</tpEvento><nSeqEvento>%s</nSeqEvento><verEvento>1.00</verEvento>`+
		`<detEvento versao="1.00"><descEvento>Carta de Correcao</descEvento><xCorrecao>%s</xCorrecao><xCondUso>%s</xCondUso></detEvento></infEvento></evento>`,
		nfeNS, id, x.Key[:2], tpAmbOf(env), x.CNPJ, x.Key, x.At.In(brt).Format("2006-01-02T15:04:05-07:00"), seq, b.String(), condUso)
	return c.sendEvent(ctx, cert, url, auth, x.Key, id, ev, x.At, "envCCe", "retEnvCCe")
}

// Manifestation is a recipient's manifestation of a note issued to it.
type Manifestation struct {
	Key, CNPJ string
	// Event is 210200 (confirmação da operação), 210210 (ciência),
	// 210220 (desconhecimento) or 210240 (operação não realizada, with
	// a reason of 15 to 255 characters).
	Event  string
	Reason string
	At     time.Time
}

// manifestations are each event's description, as the schema spells it.
var manifestations = map[string]string{"210200": "Confirmacao da Operacao", "210210": "Ciencia da Operacao",
	"210220": "Desconhecimento da Operacao", "210240": "Operacao nao Realizada"}

// Manifest sends a recipient's manifestation to the national environment
// (AN's NFeRecepcaoEvento4, cOrgao 91), signed with the recipient's
// certificate: 135 or 136 registered, or a refusal.
func (c *Client) Manifest(ctx context.Context, cert certs.Certificate, m Manifestation, env string) (Event, error) {
	desc, ok := manifestations[m.Event]
	if !ok {
		return Event{}, fmt.Errorf("%w: event %q is not a manifestation", ErrMessage, m.Event)
	}
	if len(m.Key) != 44 || strings.Trim(m.Key, "0123456789") != "" {
		return Event{}, fmt.Errorf("%w: %q is not an access key (44 digits)", ErrMessage, m.Key)
	}
	url, err := c.Endpoints.Lookup("55", "AN", env, "NFeRecepcaoEvento4")
	if err != nil {
		return Event{}, err
	}
	just := ""
	if m.Event == "210240" {
		reason := strings.Join(strings.Fields(m.Reason), " ")
		if n := len([]rune(reason)); n < 15 || n > 255 {
			return Event{}, fmt.Errorf("%w: an operation not made needs a reason of 15 to 255 characters", ErrMessage)
		}
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(reason))
		just = "<xJust>" + b.String() + "</xJust>"
	}
	id := "ID" + m.Event + m.Key + "01"
	ev := fmt.Sprintf(`<evento xmlns="%s" versao="1.00"><infEvento Id="%s"><cOrgao>91</cOrgao><tpAmb>%s</tpAmb><CNPJ>%s</CNPJ>`+
		`<chNFe>%s</chNFe><dhEvento>%s</dhEvento><tpEvento>%s</tpEvento><nSeqEvento>1</nSeqEvento><verEvento>1.00</verEvento>`+
		`<detEvento versao="1.00"><descEvento>%s</descEvento>%s</detEvento></infEvento></evento>`,
		nfeNS, id, tpAmbOf(env), m.CNPJ, m.Key, m.At.In(brt).Format("2006-01-02T15:04:05-07:00"), m.Event, desc, just)
	return c.sendEvent(ctx, cert, url, "AN", m.Key, id, ev, m.At, "envConfRecebto", "retEnvConfRecebto")
}

// serviceOf is the authorizer of a note's state and model, or of its
// contingency (all read from its key), and the address of its service
// for env.
func (c *Client) serviceOf(key, env, service string) (auth, url string, err error) {
	state, ok := ufByCode[key[:2]]
	if !ok {
		return "", "", fmt.Errorf("access key of state code %s: %w", key[:2], ErrUnknownState)
	}
	model := key[20:22]
	switch {
	case model == "55" && key[34] == '6':
		// A note issued in contingency goes, with its events, to the
		// contingency authorizer its emission type names.
		auth = "SVCAN"
	case model == "55" && key[34] == '7':
		auth = "SVCRS"
	default:
		if auth, err = c.Endpoints.Authorizer(model, state); err != nil {
			return "", "", err
		}
	}
	url, err = c.Endpoints.Lookup(model, auth, env, service)
	return auth, url, err
}

// brt is the offset the events' times are written in (Brasília).
var brt = time.FixedZone("BRT", -3*3600)

// tpAmbOf is the environment's tpAmb: 1 production, 2 homologation.
func tpAmbOf(env string) string {
	if env == Producao {
		return "1"
	}
	return "2"
}

// withoutDeclaration drops a document's XML declaration, to nest it.
func withoutDeclaration(doc []byte) []byte {
	doc = bytes.TrimSpace(doc)
	if bytes.HasPrefix(doc, []byte("<?xml")) {
		if i := bytes.Index(doc, []byte("?>")); i >= 0 {
			doc = bytes.TrimSpace(doc[i+2:])
		}
	}
	return doc
}

// epecNote is what an EPEC states of its note.
type epecNote struct {
	Inf struct {
		ID      string `xml:"Id,attr"`
		DhEmi   string `xml:"ide>dhEmi"`
		TpNF    string `xml:"ide>tpNF"`
		TpEmis  string `xml:"ide>tpEmis"`
		VerProc string `xml:"ide>verProc"`
		CNPJ    string `xml:"emit>CNPJ"`
		IE      string `xml:"emit>IE"`
		Dest    struct {
			CNPJ string `xml:"CNPJ"`
			CPF  string `xml:"CPF"`
			IE   string `xml:"IE"`
			UF   string `xml:"enderDest>UF"`
		} `xml:"dest"`
		VNF   string `xml:"total>ICMSTot>vNF"`
		VICMS string `xml:"total>ICMSTot>vICMS"`
		VST   string `xml:"total>ICMSTot>vST"`
	} `xml:"infNFe"`
}

// EPEC registers the prior issue of an NF-e in EPEC contingency (event
// 110140) at the national environment (AN's NFeRecepcaoEvento4, cOrgao
// 91), from the signed note itself (tpEmis 4): its issuer, issue time,
// recipient and totals. 124 or 136 registered (the note is sent to its
// authorizer later), or a refusal.
func (c *Client) EPEC(ctx context.Context, cert certs.Certificate, note []byte, at time.Time, env string) (Event, error) {
	var n epecNote
	if err := xml.Unmarshal(note, &n); err != nil {
		return Event{}, fmt.Errorf("%w: the note: %v", ErrMessage, err)
	}
	key := strings.TrimPrefix(n.Inf.ID, "NFe")
	if len(key) != 44 || n.Inf.TpEmis != "4" || key[34] != '4' {
		return Event{}, fmt.Errorf("%w: an EPEC is of a note issued with tpEmis 4", ErrMessage)
	}
	url, err := c.Endpoints.Lookup("55", "AN", env, "NFeRecepcaoEvento4")
	if err != nil {
		return Event{}, err
	}
	d := n.Inf.Dest
	dest := "<CNPJ>" + d.CNPJ + "</CNPJ>"
	if d.CNPJ == "" {
		dest = "<CPF>" + d.CPF + "</CPF>"
	}
	if d.IE != "" && d.IE != "ISENTO" {
		dest += "<IE>" + d.IE + "</IE>"
	}
	id := "ID110140" + key + "01"
	ev := fmt.Sprintf(`<evento xmlns="%s" versao="1.00"><infEvento Id="%s"><cOrgao>91</cOrgao><tpAmb>%s</tpAmb><CNPJ>%s</CNPJ>`+
		`<chNFe>%s</chNFe><dhEvento>%s</dhEvento><tpEvento>110140</tpEvento><nSeqEvento>1</nSeqEvento><verEvento>1.00</verEvento>`+
		`<detEvento versao="1.00"><descEvento>EPEC</descEvento><cOrgaoAutor>%s</cOrgaoAutor><tpAutor>1</tpAutor><verAplic>%s</verAplic>`+
		`<dhEmi>%s</dhEmi><tpNF>%s</tpNF><IE>%s</IE><dest><UF>%s</UF>%s<vNF>%s</vNF><vICMS>%s</vICMS><vST>%s</vST></dest></detEvento>`+
		`</infEvento></evento>`,
		nfeNS, id, tpAmbOf(env), n.Inf.CNPJ, key, at.In(brt).Format("2006-01-02T15:04:05-07:00"), key[:2], n.Inf.VerProc,
		n.Inf.DhEmi, n.Inf.TpNF, n.Inf.IE, d.UF, dest, n.Inf.VNF, n.Inf.VICMS, n.Inf.VST)
	return c.sendEvent(ctx, cert, url, "AN", key, id, ev, at, "envEPEC", "retEnvEPEC")
}

// Substitution cancels an NFC-e by substitution (event 110112): the note
// (key and protocol) replaced by another NFC-e of the same issuer.
type Substitution struct {
	Key, Protocol, CNPJ string
	SubstituteKey       string
	Reason              string
	At                  time.Time
}

// CancelBySubstitution registers an NFC-e's cancellation by substitution
// at its authorizer (NFeRecepcaoEvento4; the generic event schema):
// 135 registered, or a refusal.
func (c *Client) CancelBySubstitution(ctx context.Context, cert certs.Certificate, x Substitution, env string) (Event, error) {
	reason := strings.Join(strings.Fields(x.Reason), " ")
	if n := len([]rune(reason)); n < 15 || n > 255 {
		return Event{}, fmt.Errorf("%w: the cancellation's reason needs 15 to 255 characters", ErrMessage)
	}
	for _, k := range []string{x.Key, x.SubstituteKey} {
		if len(k) != 44 || strings.Trim(k, "0123456789") != "" || k[20:22] != "65" || k[6:20] != x.CNPJ {
			return Event{}, fmt.Errorf("%w: %q is not a key of an NFC-e of %s", ErrMessage, k, x.CNPJ)
		}
	}
	if x.Key == x.SubstituteKey {
		return Event{}, fmt.Errorf("%w: a note does not substitute itself", ErrMessage)
	}
	auth, url, err := c.serviceOf(x.Key, env, "NFeRecepcaoEvento4")
	if err != nil {
		return Event{}, err
	}
	var just bytes.Buffer
	xml.EscapeText(&just, []byte(reason))
	id := "ID110112" + x.Key + "01"
	ev := fmt.Sprintf(`<evento xmlns="%s" versao="1.00"><infEvento Id="%s"><cOrgao>%s</cOrgao><tpAmb>%s</tpAmb><CNPJ>%s</CNPJ>`+
		`<chNFe>%s</chNFe><dhEvento>%s</dhEvento><tpEvento>110112</tpEvento><nSeqEvento>1</nSeqEvento><verEvento>1.00</verEvento>`+
		`<detEvento versao="1.00"><descEvento>Cancelamento por substituicao</descEvento><cOrgaoAutor>%s</cOrgaoAutor><tpAutor>1</tpAutor>`+
		`<verAplic>fincom</verAplic><nProt>%s</nProt><xJust>%s</xJust><chNFeRef>%s</chNFeRef></detEvento></infEvento></evento>`,
		nfeNS, id, x.Key[:2], tpAmbOf(env), x.CNPJ, x.Key, x.At.In(brt).Format("2006-01-02T15:04:05-07:00"), x.Key[:2], x.Protocol,
		just.String(), x.SubstituteKey)
	return c.sendEvent(ctx, cert, url, auth, x.Key, id, ev, x.At, "envEvento", "retEnvEvento")
}

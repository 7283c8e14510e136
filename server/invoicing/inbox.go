package invoicing

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/fiscal/sefaz"
	"fincom/server/inbox"
	"fincom/store"
)

// maxFetchRounds bounds the lots one fetch asks for: the national
// environment answers up to 50 documents a lot, so one fetch reads up to
// a thousand and the next goes on from there.
const maxFetchRounds = 20

// maxLotBytes bounds the notes one lot keeps in memory before they are
// written: a lot whose notes pass it is written up to the note before,
// and the next round asks from there (50 notes of 4 MiB would hold
// 200 MiB).
const maxLotBytes = 32 << 20

// InboxFetch is what one fetch of a unit's documents did: the last answer
// (138 documents, 137 none: ask again in an hour, 656 asked too often),
// the NSU read up to, the notes imported, the summaries and events seen,
// and the documents not taken, with why.
type InboxFetch struct {
	Code      int                     `json:"cStat"`
	Reason    string                  `json:"xMotivo"`
	NSU       int64                   `json:"nsu"`
	Imported  []string                `json:"imported"`
	Summaries int                     `json:"summaries"`
	Events    int                     `json:"events"`
	Refused   []store.RefusedDocument `json:"refused"`
	// Summarized are the keys of the notes the national environment
	// summarized (resNFe): it distributes a note whole once its recipient
	// has sent at least its ciência.
	Summarized []string `json:"-"`
}

// FetchInbox asks the national environment (NFeDistribuicaoDFe) for the
// documents issued to the unit's CNPJ after the last NSU it read, in env.
// Each answer is judged whole before anything is written (its NSUs
// numeric, after the position and within the lot, the lot within
// maxNSU); its documents are then read one at a time, each by its content
// (its root element, not its label): authorized notes enter the inbox as
// signers allow, summaries and events are counted, and a document that
// cannot be taken is recorded with its NSU and why. The lot and the new
// position are written in one transaction.
func FetchInbox(ctx context.Context, db *store.DB, c *sefaz.Client, u store.Unit, cert certs.Certificate, env string, signers *inbox.Signers) (InboxFetch, error) {
	out := InboxFetch{Imported: []string{}, Refused: []store.RefusedDocument{}}
	if len(u.CityIBGE) < 2 {
		return out, fmt.Errorf("unit %s has no city", u.Name)
	}
	nsu, err := db.DistributionNSU(ctx, u.ID)
	if err != nil {
		return out, err
	}
	out.NSU = nsu
	for range maxFetchRounds {
		d, err := c.Distribute(ctx, cert, brdoc.Digits(u.CNPJ), u.CityIBGE[:2], strconv.FormatInt(nsu, 10), env)
		if err != nil {
			return out, err
		}
		out.Code, out.Reason = d.Code, d.Reason
		if d.Code != 138 {
			break // 137 nothing new, 656 asked too often: wait before asking again
		}
		last, max, nsus, err := judgeLot(d, nsu)
		if err != nil {
			return out, err
		}
		lot, taken := readLot(d, nsus, nsu, last, u.CNPJ, signers, &out)
		added, err := db.ApplyDistribution(ctx, u.ID, lot, taken)
		if err != nil {
			return out, err
		}
		out.Imported = append(out.Imported, added...)
		nsu, out.NSU = lot.NSU, lot.NSU
		if lot.NSU == last && last >= max {
			break
		}
	}
	return out, nil
}

// FetchAgain asks the national environment for the one document at nsu
// (consNSU), a document the inbox did not take, and reads it as
// FetchInbox does: taken, its refusal is lifted; refused again, the
// refusal says why now. The position does not move.
func FetchAgain(ctx context.Context, db *store.DB, c *sefaz.Client, u store.Unit, cert certs.Certificate, env string, signers *inbox.Signers, nsu int64) (InboxFetch, error) {
	out := InboxFetch{Imported: []string{}, Refused: []store.RefusedDocument{}}
	if len(u.CityIBGE) < 2 {
		return out, fmt.Errorf("unit %s has no city", u.Name)
	}
	d, err := c.DistributeOne(ctx, cert, brdoc.Digits(u.CNPJ), u.CityIBGE[:2], strconv.FormatInt(nsu, 10), env)
	if err != nil {
		return out, err
	}
	out.Code, out.Reason = d.Code, d.Reason
	if d.Code != 138 {
		return out, nil
	}
	if len(d.Documents) != 1 || d.Documents[0].NSU == "" {
		return out, fmt.Errorf("%w: %d documents for NSU %d", sefaz.ErrAnswer, len(d.Documents), nsu)
	}
	if got, err := strconv.ParseInt(d.Documents[0].NSU, 10, 64); err != nil || got != nsu {
		return out, fmt.Errorf("%w: NSU %q answers NSU %d", sefaz.ErrAnswer, d.Documents[0].NSU, nsu)
	}
	lot, taken := readLot(d, []int64{nsu}, nsu-1, nsu, u.CNPJ, signers, &out)
	lot.NSU = 0 // the position stays
	added, err := db.ApplyDistribution(ctx, u.ID, lot, taken)
	if err != nil {
		return out, err
	}
	out.Imported = append(out.Imported, added...)
	out.NSU, err = db.DistributionNSU(ctx, u.ID)
	return out, err
}

// judgeLot checks a 138 answer whole before anything of it is written:
// ultNSU and maxNSU numeric, ultNSU not before the position nor after
// maxNSU, each document's NSU numeric, after the position and the
// document before it, and not after ultNSU.
func judgeLot(d sefaz.Distribution, after int64) (last, max int64, nsus []int64, err error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", sefaz.ErrAnswer, fmt.Sprintf(format, args...))
	}
	if last, err = parseNSU(d.LastNSU); err != nil {
		return 0, 0, nil, bad("ultNSU %q is not an NSU", d.LastNSU)
	}
	if max, err = parseNSU(d.MaxNSU); err != nil {
		return 0, 0, nil, bad("maxNSU %q is not an NSU", d.MaxNSU)
	}
	if last < after || last > max {
		return 0, 0, nil, bad("ultNSU %d after NSU %d with maxNSU %d", last, after, max)
	}
	prev := after
	for _, doc := range d.Documents {
		n, err := parseNSU(doc.NSU)
		if err != nil || n <= prev || n > last {
			return 0, 0, nil, bad("document NSU %q after NSU %d, within ultNSU %d", doc.NSU, prev, last)
		}
		nsus, prev = append(nsus, n), n
	}
	return last, max, nsus, nil
}

func parseNSU(s string) (int64, error) {
	if s == "" || len(s) > 15 || strings.Trim(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 10, 64)
}

// readLot reads a judged lot's documents one at a time, by their content:
// the notes it takes (up to maxLotBytes, the lot then ending at the
// document before), the NSUs it took, the documents it refused; counts go
// to out.
func readLot(d sefaz.Distribution, nsus []int64, after, last int64, unitCNPJ string, signers *inbox.Signers, out *InboxFetch) (store.DistributedLot, []int64) {
	lot := store.DistributedLot{NSU: last}
	var taken []int64
	kept := 0
	prev := after
	for i, doc := range d.Documents {
		n := nsus[i]
		refuse := func(reason string) {
			r := store.RefusedDocument{NSU: n, Schema: doc.Schema, Reason: reason}
			lot.Refused = append(lot.Refused, r)
			out.Refused = append(out.Refused, r)
		}
		raw, err := doc.Open()
		if err != nil {
			refuse(err.Error())
			prev = n
			continue
		}
		switch root := rootOf(raw); root {
		case "nfeProc":
			if kept+len(raw) > maxLotBytes && kept > 0 {
				lot.NSU = prev // the rest comes in the next round
				return lot, taken
			}
			note, err := inbox.ReadNFe(raw, unitCNPJ, signers)
			if err != nil {
				refuse(err.Error())
				break
			}
			// It came from the national environment itself, over mutual
			// TLS: the authorities' own copy.
			note.Confirmed = true
			kept += len(raw)
			lot.Notes = append(lot.Notes, note)
			taken = append(taken, n)
		case "resNFe":
			s, err := readSummary(raw)
			if err != nil {
				refuse(err.Error())
				break
			}
			out.Summaries++
			out.Summarized = append(out.Summarized, s.AccessKey)
			lot.Summaries = append(lot.Summaries, s)
			taken = append(taken, n)
		case "procEventoNFe", "resEvento":
			out.Events++
			if key, cancels := readEvent(raw); cancels {
				lot.Cancelled = append(lot.Cancelled, key)
			}
			taken = append(taken, n)
		default:
			refuse(fmt.Sprintf("a document the inbox does not read (root %q)", root))
		}
		prev = n
	}
	return lot, taken
}

// situations are a summary's cSitNFe as the inbox says them.
var situations = map[string]string{"1": "authorized", "2": "denied", "3": "cancelled"}

// readSummary reads a distributed summary (resNFe) of a note issued to
// the unit: its key, issuer, date, value and situation.
func readSummary(raw []byte) (store.InboxSummary, error) {
	var r struct {
		Key   string `xml:"chNFe"`
		CNPJ  string `xml:"CNPJ"`
		CPF   string `xml:"CPF"`
		Name  string `xml:"xNome"`
		Date  string `xml:"dhEmi"`
		Total string `xml:"vNF"`
		Sit   string `xml:"cSitNFe"`
	}
	if err := xml.Unmarshal(raw, &r); err != nil {
		return store.InboxSummary{}, fmt.Errorf("a summary that cannot be read: %v", err)
	}
	total, err := decimal.NewFromString(r.Total)
	if !brdoc.ValidAccessKey(r.Key) || err != nil || !store.InMoneyRange(total) || total.IsNegative() {
		return store.InboxSummary{}, fmt.Errorf("a summary without a valid key or value")
	}
	day := ""
	if t, err := time.Parse(time.RFC3339, r.Date); err == nil {
		day = t.Format(time.DateOnly)
	}
	return store.InboxSummary{AccessKey: r.Key, SupplierCNPJ: r.CNPJ + r.CPF, SupplierName: strings.TrimSpace(r.Name), IssueDate: day,
		Situation: situations[r.Sit], Total: store.NewMoney(total.Round(2)), XML: raw}, nil
}

// readEvent reads a distributed event (resEvento, procEventoNFe): the key
// of its note and whether it cancels it (110111, or 110112 by
// substitution).
func readEvent(raw []byte) (key string, cancels bool) {
	var r struct {
		Key    string `xml:"chNFe"`
		Type   string `xml:"tpEvento"`
		InfKey string `xml:"evento>infEvento>chNFe"`
		InfTyp string `xml:"evento>infEvento>tpEvento"`
	}
	if xml.Unmarshal(raw, &r) != nil {
		return "", false
	}
	key, typ := cmp.Or(r.Key, r.InfKey), cmp.Or(r.Type, r.InfTyp)
	return key, brdoc.ValidAccessKey(key) && (typ == "110111" || typ == "110112")
}

// nfeNS is the NF-e's namespace, which every distributed document is in.
const nfeNS = "http://www.portalfiscal.inf.br/nfe"

// rootOf is the local name of a document's root element in the NF-e's
// namespace, or "" (another namespace, not XML).
func rootOf(doc []byte) string {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Space != nfeNS {
				return ""
			}
			return se.Name.Local
		}
	}
}

// FetchInboxes fetches the documents of each unit of a domain that has a
// certificate, in the unit's environment, through the server's SEFAZ
// client (none in test mode, nor with InboxOff: nothing is fetched). While
// documents come (138) it goes on; once caught up, or after an error, a
// unit waits InboxPoll, and never less than the hour the national
// environment asks after "nothing new" (137) or "asked too often" (656).
func (s *Service) FetchInboxes(ctx context.Context, db *store.DB) error {
	if s.SEFAZ == nil || s.Keyring == nil || s.InboxOff {
		return nil
	}
	poll := cmp.Or(s.InboxPoll, time.Hour)
	units, err := db.Units(ctx)
	if err != nil {
		return err
	}
	var errs []error
	var signers *inbox.Signers
	recorded := false
	now := db.Now()
	for _, u := range units {
		waitKey := db.Name + "/inbox/" + u.Token
		if s.waiting(waitKey, now) {
			continue
		}
		cert, production, ok, err := s.unitSigner(ctx, db, u.ID)
		if err != nil || !ok {
			errs = append(errs, err)
			continue
		}
		env := sefaz.Homologacao
		if production {
			env = sefaz.Producao
		}
		if signers == nil {
			// Built once a pass, for the first unit that fetches.
			if signers, err = s.InboxSigners(ctx, db); err != nil {
				return errors.Join(append(errs, err)...)
			}
		}
		f, err := FetchInbox(ctx, db, s.SEFAZ, u, cert, env, signers)
		if err != nil || f.Code != 138 {
			wait := poll
			if f.Code == 137 || f.Code == 656 {
				wait = max(wait, time.Hour)
			}
			s.manifestWait.Store(waitKey, backoff{wait: wait, next: now.Add(wait)})
		}
		if err != nil {
			errs = append(errs, err)
		}
		// A summarized note comes whole once the unit's ciência is
		// registered: recorded on its inbox entry and sent as any
		// manifestation (retried, 573 taken as registered), the note
		// arrives in a later fetch.
		for _, key := range f.Summarized {
			err := db.Manifest(ctx, u.ID, key, "ciencia", "")
			switch {
			case err == nil:
				recorded = true
			case errors.Is(err, store.ErrManifestRule), errors.Is(err, store.ErrAlreadyManifested):
			default:
				errs = append(errs, err)
			}
		}
	}
	if recorded {
		errs = append(errs, s.SendManifestations(ctx, db))
	}
	return errors.Join(errs...)
}

// InboxSigners is whose notes a production inbox of db takes: signers
// chaining to s.SignerRoots (the ICP-Brasil roots when nil), and the
// domain's own units' certificates.
func (s *Service) InboxSigners(ctx context.Context, db *store.DB) (*inbox.Signers, error) {
	roots := s.SignerRoots
	if roots == nil {
		var err error
		if roots, err = certs.SignerPool(""); err != nil {
			return nil, err
		}
	}
	own, err := db.OwnCertificates(ctx)
	if err != nil {
		return nil, err
	}
	return &inbox.Signers{Roots: roots, Own: own}, nil
}

// ErrNotConfirmed is a note its authority does not hold as authorized
// with this content: unknown to it (217), cancelled or denied, or
// authorized with another digest (the note changed, or was forged).
var ErrNotConfirmed = errors.New("the authority does not confirm the note as authorized")

// ErrConfirmDown is an authority that did not answer when asked to
// confirm a note (unreachable, or an answer that is none).
var ErrConfirmDown = errors.New("the authority did not answer when asked to confirm the note")

// NotConfirmedError says what the authority answered of a note it does
// not confirm.
type NotConfirmedError struct {
	Code   int
	Reason string
}

func (e *NotConfirmedError) Error() string {
	return fmt.Sprintf("%v: cStat %d, %s", ErrNotConfirmed, e.Code, sefaz.Shown(e.Reason))
}

func (e *NotConfirmedError) Unwrap() error { return ErrNotConfirmed }

// noteFacts is what ConfirmNote reads of a note: its environment and the
// digest its issuer signed.
type noteFacts struct {
	TpAmb  string `xml:"NFe>infNFe>ide>tpAmb"`
	Digest string `xml:"NFe>Signature>SignedInfo>Reference>DigestValue"`
}

// ConfirmNote asks the authority of a note's key for its standing
// (NFeConsultaProtocolo4, in the note's environment), signed in with the
// recipient unit's certificate, before the note enters the unit's inbox:
// it must be authorized (100 or 150) under the same digest as the note
// (digVal), or it is a *NotConfirmedError. A unit without a certificate,
// or a server without a SEFAZ client (test mode), cannot ask: the note
// enters unconfirmed. An authority that does not answer is ErrConfirmDown:
// nothing enters.
func (s *Service) ConfirmNote(ctx context.Context, db *store.DB, unitID int64, n *store.NewInboxNFe) error {
	if s.SEFAZ == nil || s.Keyring == nil {
		return nil
	}
	cert, _, ok, err := s.unitSigner(ctx, db, unitID)
	if err != nil || !ok {
		return err
	}
	var f noteFacts
	if err := xml.Unmarshal(n.XML, &f); err != nil || f.Digest == "" {
		return &NotConfirmedError{Reason: "the note has no digest to compare"}
	}
	env := sefaz.Homologacao
	if f.TpAmb == "1" {
		env = sefaz.Producao
	}
	sit, err := s.SEFAZ.Consult(ctx, cert, n.AccessKey, env)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrConfirmDown, err)
	}
	if sit.Code != 100 && sit.Code != 150 {
		return &NotConfirmedError{Code: sit.Code, Reason: sit.Reason}
	}
	var prot struct {
		DigVal string `xml:"infProt>digVal"`
	}
	if xml.Unmarshal(sit.ProtNFe, &prot) != nil || strings.TrimSpace(prot.DigVal) != strings.TrimSpace(f.Digest) {
		return &NotConfirmedError{Code: sit.Code, Reason: "authorized with another digest than this note's (digVal)"}
	}
	n.Confirmed = true
	return nil
}

// ErrUnreadableNote is an uploaded file that is not an NF-e XML fincom
// can read.
var ErrUnreadableNote = errors.New("the file is not a readable NF-e XML")

// ImportNote puts an uploaded NF-e XML (the nfeProc its issuer received)
// in the unit's inbox and returns its token and what was read of it.
// anySigner (test mode) takes
// any well-formed note of the unit, the local authority's included;
// otherwise the note must be authorized and signed by a signer the inbox
// trusts (InboxSigners), and its authority confirms it first where the
// unit has its certificate (ConfirmNote). Its refusals: inbox.ErrForeign,
// inbox.ErrNotAuthorized, an error wrapping inbox.ErrSignature,
// ErrUnreadableNote, *NotConfirmedError, ErrConfirmDown, and
// store.ErrDuplicate for a note already in the inbox.
func (s *Service) ImportNote(ctx context.Context, db *store.DB, unit store.Unit, data []byte, anySigner bool) (string, store.NewInboxNFe, error) {
	var signers *inbox.Signers
	if !anySigner {
		var err error
		if signers, err = s.InboxSigners(ctx, db); err != nil {
			return "", store.NewInboxNFe{}, err
		}
	}
	n, err := inbox.ReadNFe(data, unit.CNPJ, signers)
	switch {
	case errors.Is(err, inbox.ErrForeign), errors.Is(err, inbox.ErrNotAuthorized), errors.Is(err, inbox.ErrSignature):
		return "", n, err
	case err != nil:
		return "", n, fmt.Errorf("%w: %v", ErrUnreadableNote, err)
	}
	if signers != nil {
		if err := s.ConfirmNote(ctx, db, unit.ID, &n); err != nil {
			return "", n, err
		}
	}
	token, err := db.ImportNFe(ctx, unit.ID, n)
	return token, n, err
}

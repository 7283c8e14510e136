// Package invoicing issues, cancels and sends an order's fiscal invoice:
// it builds the document from the order, lends it a number, has the tax
// authority authorize it and stores it with the e-mail that carries it.
// It knows nothing of HTTP; the server's routes, the scheduler and the
// payment confirmations call it alike.
package invoicing

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/localauth"
	"fincom/server/fiscal/reform"
	"fincom/server/fiscal/sefaz"
	"fincom/server/problem"
	"fincom/store"

	"github.com/shopspring/decimal"
)

// Series is the series fincom issues in.
const Series = 1

// ContingencyReason is the justification (xJust) of the NF-e issued in
// SVC contingency.
const ContingencyReason = "Autorizador da UF indisponível: emissão em contingência SVC pelo fincom"

// EPECReason is the justification of the NF-e issued by EPEC.
const EPECReason = "Autorizadores indisponíveis: NF-e emitida em contingência EPEC pelo fincom"

// Refusals of Issue, Cancel and Send besides the store's (ErrNotFound for an
// unknown order, ErrOrderDisabled, ErrNoInvoice, ErrCancelWindow).
var (
	// ErrAuthorityDown: the authority did not answer; the number is given
	// back and a retry issues once.
	ErrAuthorityDown = problem.New(problem.Unavailable, "The tax authority did not answer. Try again: the invoice will not be issued twice.")
	// ErrNotSent: fincom refused to send the invoice (its document not
	// valid by the authority's schema, no address of the authority for
	// the unit's state or environment): nothing left, and trying again
	// alone will not help; the reason goes in details.
	ErrNotSent = problem.New(problem.Unprocessable, "The invoice was not sent: fincom could not make a document the tax authority takes. See details.")
	// ErrEventNotSent: fincom refused to send an invoice's event (a
	// cancellation, a correction, a substitution) for the same reasons.
	ErrEventNotSent = problem.New(problem.Unprocessable, "The event was not sent: fincom could not make a message the tax authority takes. See details.")
	// ErrAuthorityAnswer: the authority answered, and what it answered is
	// not its protocol's (details.reason says how); nothing changed.
	ErrAuthorityAnswer = problem.New(problem.Unavailable, "The tax authority answered something fincom cannot accept: see details. Nothing changed; try again.")
	// ErrNoNFEmail: the order has no notify_email_nf to send to.
	ErrNoNFEmail = problem.New(problem.Invalid, "The sales order has no notify_email_nf.")
	// ErrNoCertificate: the unit has no digital certificate to sign with
	// (outside test mode, the operator installs it: fincom unit cert).
	ErrNoCertificate = problem.New(problem.Unprocessable, "The unit has no digital certificate to sign its invoices: install its A1 with fincom unit cert DOMAIN UNIT_TOKEN --pfx FILE.")
	// ErrNoSecretsKey: the server has no secrets key to open the sealed
	// certificate key or CSC with (serve --secrets-key-file).
	ErrNoSecretsKey = problem.New(problem.Unprocessable, "The server has no secrets key to open the unit's certificate: start it with --secrets-key-file.")
	// ErrNoRehearsal: only test mode's local authorities take a mode.
	ErrNoRehearsal = problem.New(problem.NotFound, "Only test mode's local tax authorities take a mode.")
)

// CertificateError is a certificate that cannot sign today: expired, not
// yet valid, or of another CNPJ.
type CertificateError struct{ Err error }

func (e *CertificateError) Error() string { return e.Err.Error() }
func (e *CertificateError) Unwrap() error { return e.Err }

// InvalidError lists what keeps an order's invoice from being issued.
type InvalidError struct{ Problems []fiscal.Problem }

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invoice invalid: %d problems", len(e.Problems))
}

// Service issues invoices. Its zero value is not usable: give it an
// authority, the renderer and the links.
type Service struct {
	Authority fiscal.Authority
	Render    *render.Renderer
	Links     render.Links
	// Keyring opens the units' sealed certificate keys and CSCs.
	Keyring *certs.Keyring
	// TestCertificates makes a self-signed test certificate for a unit
	// that has none, at its first invoice (test mode and demo only: a
	// production server signs with the certificate the firm installed).
	TestCertificates bool
	// CancelWindow is how long after authorization an invoice may be
	// cancelled (the NF-e rule: 24 hours).
	CancelWindow time.Duration
	// VerdictWait is how long issuing waits for SEFAZ's verdict before
	// answering the invoice as pending (10 seconds when zero).
	VerdictWait time.Duration

	// Rehearsal is test mode's and the demo's local authorities (also the
	// Authority, maybe wrapped), set by /_test/authority; nil in
	// production.
	Rehearsal *localauth.Authorities
	// SEFAZ is a production server's client of the national environment,
	// for the units' documents (FetchInboxes); nil in test mode.
	SEFAZ *sefaz.Client
	// SignerRoots are the roots a supplier's note must chain to for the
	// inbox (certs.SignerPool: ICP-Brasil's and --ca-file's).
	SignerRoots *x509.CertPool

	// InboxPoll is how long a unit's inbox waits between fetches once it
	// has taken what was new (an hour when 0); never under the hour the
	// national environment asks after 137 (nothing new) or 656. InboxOff
	// fetches nothing (serve --inbox-poll 0).
	InboxPoll time.Duration
	InboxOff  bool
	// Reform is the tax reform's table: which issuers state IBS and CBS,
	// at which rates, by which classes (nil: none).
	Reform *reform.Table
	// manifestWait holds, by domain and key, when a manifestation that
	// could not be sent, or a unit's fetch, is tried again.
	manifestWait sync.Map
	// danfseAsked holds, by domain and key, when the national system was
	// last asked for a note's DANFSe it did not give.
	danfseAsked sync.Map
	issuing     [64]sync.Mutex // striped by domain and order (see Issue)
}

// Close stops test mode's local authorities, if any.
func (s *Service) Close() error {
	if s.Rehearsal == nil {
		return nil
	}
	return s.Rehearsal.Close()
}

// Issue issues an order's invoice through the authority: validate
// (*InvalidError listing every problem), take a number, build and
// authorize the document, store it. An order whose invoice is authorized
// answers it: issuing twice issues once. A note whose number another note
// holds at SEFAZ (539) goes out again under the next free number, a few
// times at most.
func (s *Service) Issue(ctx context.Context, db *store.DB, unitID int64, orderToken string) (store.Invoice, error) {
	var taken *numberTaken
	for range 3 {
		inv, err := s.issue(ctx, db, unitID, orderToken)
		if !errors.As(err, &taken) {
			return inv, err
		}
	}
	if !s.answersVerdicts(taken.invoice.Kind) {
		return store.Invoice{}, taken.rejected
	}
	return taken.invoice, nil
}

// issue is one try of Issue.
func (s *Service) issue(ctx context.Context, db *store.DB, unitID int64, orderToken string) (_ store.Invoice, err error) {
	// One issue per order at a time: two at once would each take a
	// number and have a document authorized, and the second would be
	// thrown away (TestConcurrentIssue).
	mu := s.orderLock(db, orderToken)
	mu.Lock()
	defer mu.Unlock()
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if err != nil {
		return store.Invoice{}, err
	}
	if d.Existing != nil {
		return *d.Existing, nil
	}
	if d.Denied != nil && s.answersVerdicts(d.Denied.Kind) {
		// Uso denegado: the number is spent and the sale cannot be
		// invoiced again as it is; nothing is sent again.
		return *d.Denied, nil
	}
	if !d.Active {
		return store.Invoice{}, store.ErrOrderDisabled
	}
	inv := Document(d)
	// The day's IBS and CBS rates are the note's: validated on today's
	// (the note's issue time is set below, once its number is taken).
	inv.Reform, inv.Issued = s.Reform, db.Now()
	if inv.Kind == fiscal.NFCe && len(d.Profile.CSCSealed) > 0 {
		if s.Keyring == nil {
			return store.Invoice{}, ErrNoSecretsKey
		}
		csc, err := s.Keyring.Open(d.Profile.CSCSealed)
		if err != nil {
			return store.Invoice{}, fmt.Errorf("the unit's CSC: %w", err)
		}
		inv.Profile.CSC = string(csc)
	}
	if problems := fiscal.Validate(inv); len(problems) > 0 {
		return store.Invoice{}, &InvalidError{Problems: problems}
	}
	cert, err := s.certificate(ctx, db, d, inv)
	if err != nil {
		return store.Invoice{}, err
	}
	// A note sent before whose answer was lost (or whose process died while
	// it was out) is the same note again: its number, issue time, key and
	// signed document (TestTransmissionLostAnswer).
	held, retry, err := db.PendingTransmission(ctx, d.OrderID)
	if err != nil {
		return store.Invoice{}, err
	}
	n, issued := held.Number, held.Issued
	if !retry {
		if n, err = db.ReserveInvoiceNumber(ctx, unitID, inv.Kind, Series); err != nil {
			return store.Invoice{}, err
		}
		issued = db.Now()
	}
	// Until the authority authorizes (or denies) the document, its number
	// is only lent: on any other way out it is given back, unless the
	// note may have reached the authority (held for the next issue).
	used := retry
	defer func() {
		if !used {
			if rerr := db.ReleaseInvoiceNumber(context.WithoutCancel(ctx), unitID, inv.Kind, Series, n); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	inv.Series, inv.Number, inv.Issued = Series, n, issued
	codeLen := 8
	if inv.Kind == fiscal.NFSeN {
		codeLen = 9
	}
	inv.Code = fiscal.RandomCode(fmt.Sprintf("%s:%s:%d:%d", orderToken, inv.Kind, Series, n), codeLen)
	rec := store.NewInvoice{Kind: inv.Kind, Series: inv.Series, Number: n, Issued: inv.Issued}
	switch inv.Kind {
	case fiscal.NFe, fiscal.NFCe:
		rec.AccessKey = fiscal.AccessKey(inv)
	case fiscal.NFSeN:
		rec.AccessKey = fiscal.NationalKey(inv)
	case fiscal.NFSe:
		rec.Verification = strings.ToUpper(inv.Code)
	}
	// The document, signed as the authority requires; a note held after a
	// lost answer goes again exactly as it was sent, whatever changed in
	// the order since (TestTransmissionSendsTheSameNote).
	var signed []byte
	switch {
	case retry:
		signed, rec.AccessKey = held.Signed, held.Key
	case inv.Kind == fiscal.NFe || inv.Kind == fiscal.NFCe || inv.Kind == fiscal.NFSeN:
		signed, err = signDocument(inv, rec.AccessKey, cert)
	}
	if err != nil {
		return store.Invoice{}, err
	}
	held = store.Transmission{OrderID: d.OrderID, UnitID: unitID, Kind: inv.Kind, Series: Series, Number: n, Key: rec.AccessKey,
		Issued: issued, Signed: signed}
	if c := inv.Contingency; c != nil && c.TpEmis == 4 && !retry {
		// By EPEC: the note is issued once the national environment
		// registered its EPEC, and sent to its authorizer later.
		out, err := s.issueEPEC(ctx, db, d, inv, cert, rec, held, orderToken)
		used = err == nil
		return out, err
	}
	// The invoice's XML is served from the order's public address from
	// the moment its note leaves (the signed note while it waits).
	public, err := db.EnsurePublicToken(ctx, unitID, orderToken)
	if err != nil {
		return store.Invoice{}, err
	}
	if !retry {
		// Recorded before it leaves: a process that dies while the
		// authority answers leaves it held, never a second note
		// (TestTransmissionRecordedBeforeSending).
		if err := db.StartTransmission(ctx, held); err != nil {
			return store.Invoice{}, err
		}
	}
	// Outside test mode the firm is answered within VerdictWait: a verdict
	// that has not come by then is a pending invoice the retry job
	// carries forward (a note cut off in flight is asked for by its key).
	actx := ctx
	if s.answersVerdicts(inv.Kind) {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, s.verdictWait())
		defer cancel()
	}
	auth, err := s.Authority.Authorize(actx, fiscal.Request{Invoice: inv, Key: rec.AccessKey + rec.Verification, Signed: signed,
		Registry: registry{db, unitID}, Cert: cert, Retry: retry, Domain: db.Name, Book: book{db}})
	var rejected *fiscal.Rejection
	if errors.As(err, &rejected) && rejected.Code == 539 && (inv.Kind == fiscal.NFe || inv.Kind == fiscal.NFCe) {
		// The number is another note's at SEFAZ. When that note is one
		// fincom sent for this very sale (its key in the order's records)
		// and SEFAZ authorized it, it is the sale's note.
		adopted, sent, ok, aerr := s.adopt(actx, db, d, inv, cert, rejected, rec.AccessKey)
		switch {
		case aerr != nil:
			err = fmt.Errorf("%w: the note holding the number could not be asked for: %v", fiscal.ErrUnsure, aerr)
		case ok:
			auth, err = adopted, nil
			rec.Issued = sent.Issued
		}
	}
	if errors.As(err, &rejected) {
		// Refused: the invoice says why, in the API and the portal, until
		// the firm fixes the order and issues again. Its number goes back
		// to the series, unless the authority denied the note (110, 301 to
		// 303: the number is spent, the protocol kept) or another key
		// already holds it there (539): given back, the next try would
		// meet the same 539; spent, the order's note goes out under the
		// next free number (TestDuplicateNumberNeverLoops). A DPS number
		// is used once: the national system's refusal spends it.
		used = true // RefuseNote gives the number back when it may
		// The national system's codes are its own: E0301 denies nothing.
		national := inv.Kind == fiscal.NFSeN
		denied, taken := !national && rejected.Denied(), !national && rejected.Code == 539
		out, rerr := db.RefuseNote(context.WithoutCancel(ctx), held, store.Refusal{Code: rejected.Code, Text: refusalText(rejected, denied),
			Denied: denied, Spent: taken || national, Protocol: rejected.Protocol, XML: rejected.XML})
		if rerr != nil {
			return store.Invoice{}, rerr
		}
		if taken {
			return out, &numberTaken{invoice: out, rejected: &RejectedError{Code: rejected.Code, Reason: rejected.Reason}}
		}
		if !s.answersVerdicts(inv.Kind) {
			return store.Invoice{}, &RejectedError{Code: rejected.Code, Reason: rejected.Reason}
		}
		return out, nil
	}
	var refusal *problem.Problem
	switch {
	case err == nil:
	case inv.Kind == fiscal.NFCe && !retry && s.answersVerdicts(inv.Kind) && errors.Is(err, fiscal.ErrUnsure):
		// The customer is at the counter and SEFAZ gave no answer: the
		// attempt, which may have reached it, is abandoned (never sent
		// again; ended once SEFAZ answers) and the sale's note issued
		// offline under a fresh number (TestOfflineAfterAnUnansweredNFCe).
		used = true
		return s.replaceOffline(ctx, db, d, inv, cert, orderToken, err)
	case errors.Is(err, fiscal.ErrUnsure) || retry || (inv.Kind != fiscal.NFCe && s.answersVerdicts(inv.Kind) && !errors.As(err, &refusal) && unanswered(err)):
		// The note may be authorized, or the authority did not answer: it
		// keeps its number and key, and the next issue (or the retry job)
		// asks for it before sending it again.
		used = true
		if herr := db.HoldTransmission(context.WithoutCancel(ctx), held, err.Error()); herr != nil {
			return store.Invoice{}, herr
		}
		if !s.answersVerdicts(inv.Kind) {
			return store.Invoice{}, fmt.Errorf("%w: %v", ErrAuthorityDown, err)
		}
		return db.OrderInvoice(context.WithoutCancel(ctx), unitID, orderToken)
	case errors.As(err, &refusal):
		// fincom's own refusal before anything left (no address, a kind
		// not connected): nothing is kept.
		if derr := db.DropTransmission(context.WithoutCancel(ctx), d.OrderID); derr != nil {
			return store.Invoice{}, derr
		}
		return store.Invoice{}, err
	default:
		// It never left: the number is given back, or an NFC-e is issued
		// offline under it (TestOfflineNFCe).
		if derr := db.DropTransmission(context.WithoutCancel(ctx), d.OrderID); derr != nil {
			return store.Invoice{}, derr
		}
		if refused := notSent(err); refused != nil {
			return store.Invoice{}, refused
		}
		if inv.Kind == fiscal.NFCe {
			out, oerr := s.issueOffline(ctx, db, d, inv, cert, rec, orderToken)
			used = oerr == nil
			return out, oerr
		}
		return store.Invoice{}, fmt.Errorf("%w: %v", ErrAuthorityDown, err)
	}
	used = true // authorized: the number is the document's, whatever follows
	rec.Protocol, rec.XML, rec.StatusCode = auth.Protocol, auth.XML, auth.Status
	if auth.Key != "" {
		// The national system numbers its notes: the key is its.
		rec.AccessKey = auth.Key
	}
	// A national NFS-e's printable form is the system's own DANFSe, kept
	// with the invoice (fincom's rendering when the system has none).
	danfse := s.officialDANFSe(ctx, db, d, rec.Invoice())
	notice, err := s.noticeWith(d, public, rec.Invoice(), danfse)
	if err != nil {
		return store.Invoice{}, err
	}
	out, err := db.SaveInvoice(ctx, d.OrderID, unitID, rec, auth.Message+" (protocolo "+auth.Protocol+")", notice, nil, nil)
	if err == nil && danfse != nil {
		err = db.KeepDANFSe(context.WithoutCancel(ctx), out.Token, danfse)
	}
	return out, err
}

// orderLock is the lock one order's issuing (or replacing) holds.
func (s *Service) orderLock(db *store.DB, orderToken string) *sync.Mutex {
	h := fnv.New32a()
	io.WriteString(h, db.Name+"\x00"+orderToken)
	return &s.issuing[h.Sum32()%uint32(len(s.issuing))]
}

// signDocument builds and signs an NF-e, NFC-e or national DPS.
func signDocument(inv fiscal.Invoice, key string, cert certs.Certificate) ([]byte, error) {
	if inv.Kind == fiscal.NFSeN {
		doc, err := fiscal.BuildDPS(inv)
		if err != nil {
			return nil, err
		}
		return fiscal.Sign(doc, fiscal.DPSID(inv), cert)
	}
	doc, err := fiscal.BuildNFe(inv, key)
	if err != nil {
		return nil, err
	}
	return fiscal.Sign(doc, "NFe"+key, cert)
}

// registry is the simulated authority's view of a unit's documents.
type registry struct {
	db     *store.DB
	unitID int64
}

func (r registry) Authorized(ctx context.Context, kind string, series, number int) (string, bool, error) {
	return r.db.AuthorizedInvoice(ctx, r.unitID, kind, series, number)
}

// book is the domain's records as a fiscal.Book.
type book struct{ db *store.DB }

func (b book) Issued(ctx context.Context) ([]fiscal.Issued, error) {
	notes, err := b.db.IssuedNotes(ctx)
	out := make([]fiscal.Issued, len(notes))
	for i, n := range notes {
		out[i] = fiscal.Issued{Kind: n.Kind, XML: []byte(n.XML), Cancelled: n.Cancelled, Corrections: n.Corrections}
	}
	return out, err
}

// certificate opens the unit's certificate and checks it can sign today;
// in test mode a unit without one gets a self-signed test certificate.
func (s *Service) certificate(ctx context.Context, db *store.DB, d store.InvoiceData, inv fiscal.Invoice) (certs.Certificate, error) {
	if inv.Kind == fiscal.NFSe {
		return certs.Certificate{}, nil // municipal systems differ; fincom sends the note unsigned
	}
	if s.Keyring == nil {
		return certs.Certificate{}, ErrNoSecretsKey
	}
	if d.Certificate == nil {
		if !s.TestCertificates {
			return certs.Certificate{}, ErrNoCertificate
		}
		c, err := certs.TestCertificate(d.Emitter.Name, inv.Emitter.Register, db.Now())
		if err != nil {
			return certs.Certificate{}, err
		}
		if err := InstallCertificate(ctx, db, d.UnitID, s.Keyring, c); err != nil {
			return certs.Certificate{}, err
		}
		return c, nil
	}
	c, err := s.Keyring.OpenCertificate(d.Certificate.Cert, d.Certificate.Chain, d.Certificate.SealedKey)
	if err != nil {
		return certs.Certificate{}, fmt.Errorf("the unit's certificate: %w", err)
	}
	if err := certs.Check(c.Cert, inv.Emitter.Register, db.Now()); err != nil {
		return certs.Certificate{}, &CertificateError{err}
	}
	return c, nil
}

// ServiceStatus asks the SEFAZ that authorizes the unit's NF-e in env
// (homologacao, producao) whether its service is up (NFeStatusServico4,
// as `fincom fiscal status` asks), signed with the unit's installed
// certificate: test mode's and the demo's local SEFAZ, else the state's.
func (s *Service) ServiceStatus(ctx context.Context, db *store.DB, unit store.Unit, env string) (sefaz.Status, error) {
	m, ok := brdoc.LookupIBGE(unit.CityIBGE)
	if !ok {
		return sefaz.Status{}, fmt.Errorf("unit %s has no city", unit.Name)
	}
	stored, err := db.Certificate(ctx, unit.ID)
	if errors.Is(err, store.ErrNotFound) {
		return sefaz.Status{}, ErrNoCertificate
	}
	if err != nil {
		return sefaz.Status{}, err
	}
	if s.Keyring == nil {
		return sefaz.Status{}, ErrNoSecretsKey
	}
	cert, err := s.Keyring.OpenCertificate(stored.Cert, stored.Chain, stored.SealedKey)
	if err != nil {
		return sefaz.Status{}, err
	}
	switch {
	case s.Rehearsal != nil:
		return s.Rehearsal.Status(ctx, db.Name, cert, m.State, unit.CityIBGE[:2], env)
	case s.SEFAZ != nil:
		return s.SEFAZ.Status(ctx, cert, "55", m.State, unit.CityIBGE[:2], env)
	}
	return sefaz.Status{}, fiscal.ErrNotConnected
}

// InstallCertificate seals a certificate's key and stores it as the
// unit's (the CLI's unit cert, and test mode's test certificates).
func InstallCertificate(ctx context.Context, db *store.DB, unitID int64, k *certs.Keyring, c certs.Certificate) error {
	sealed, err := k.SealKey(c)
	if err != nil {
		return err
	}
	return db.SetUnitCertificate(ctx, unitID, store.UnitCertificate{Cert: c.Cert.Raw, Chain: c.ChainDER(), SealedKey: sealed, CNPJ: certs.CNPJ(c.Cert),
		Subject: c.Cert.Subject.CommonName, NotBefore: c.Cert.NotBefore, NotAfter: c.Cert.NotAfter, Test: certs.IsTest(c.Cert)})
}

// Send e-mails the order's invoice (its XML and DANFE, and their links)
// to notify_email_nf again.
func (s *Service) Send(ctx context.Context, db *store.DB, unitID int64, orderToken string) error {
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if err != nil {
		return err
	}
	if d.Existing == nil {
		return store.ErrNoInvoice
	}
	if d.NotifyEmailNF == "" {
		return ErrNoNFEmail
	}
	pdf, err := s.DANFEPDF(ctx, db, *d.Existing, d)
	if err != nil {
		return err
	}
	n, err := s.noticeWith(d, d.PublicToken, *d.Existing, pdf)
	if err != nil {
		return err
	}
	return db.QueueInvoiceNotice(ctx, unitID, orderToken, *n)
}

// notice renders the e-mail that carries an invoice's documents to
// notify_email_nf. The order's public token may be set only when the
// invoice is saved: the links then use it.
func (s *Service) notice(d store.InvoiceData, publicToken string, inv store.Invoice) (*store.Notice, error) {
	return s.noticeWith(d, publicToken, inv, nil)
}

// noticeWith is notice with the invoice's printable PDF (nil: fincom's
// rendering of it).
func (s *Service) noticeWith(d store.InvoiceData, publicToken string, inv store.Invoice, pdf []byte) (*store.Notice, error) {
	if d.NotifyEmailNF == "" || publicToken == "" {
		return nil, nil
	}
	n, err := s.Render.Notice("invoice_issued", d.NotifyEmailNF, "", render.MailData{Seller: d.Emitter.Name, Customer: d.Recipient.Name,
		OrderCode: d.CodOrders, Description: d.Description, Amount: render.BRL(d.Value.String()), PaymentURL: s.Links.DANFE(publicToken),
		Extra: "XML: " + s.Links.InvoiceXML(publicToken)})
	if n == nil || err != nil {
		return n, err
	}
	// The recipient keeps the documents themselves (the buyer of an NF-e
	// must be able to keep its XML), not only links to them.
	if pdf == nil {
		if pdf, err = DANFEPDF(inv, Document(d)); err != nil {
			return nil, err
		}
	}
	n.Attachments = []store.Attachment{{Name: FileName(inv) + ".xml", ContentType: "application/xml", Data: []byte(inv.XML)},
		{Name: FileName(inv) + ".pdf", ContentType: "application/pdf", Data: pdf}}
	return n, nil
}

// HasDANFE says an invoice is printed: one the authority authorized (or
// cancelled since), or issued in contingency (its DANFE says so). A
// pending, rejected or denied note has no DANFE.
func HasDANFE(inv store.Invoice) bool {
	return inv.Status == store.InvoiceAuthorized || inv.Status == store.InvoiceCancelled || inv.Status == store.InvoiceContingency
}

// FileName is the base name of an invoice's documents (XML, PDF): its
// access key, or its kind and number when it has none (municipal NFS-e).
func FileName(inv store.Invoice) string {
	if inv.AccessKey.String != "" {
		return inv.AccessKey.String
	}
	return inv.Kind + "-" + strconv.Itoa(inv.Number)
}

func party(p store.InvoiceParty) fiscal.Party {
	out := fiscal.Party{Register: brdoc.Clean(p.Register), Name: p.Name, IM: p.IM, Address: p.Address, Number: p.Number,
		Complement: p.Complement, Neighborhood: p.Neighborhood, CityIBGE: p.CityIBGE, City: p.City, State: p.State, Zip: p.Zip,
		Phone: p.Phone, Email: p.Email}
	if m, ok := brdoc.LookupIBGE(p.CityIBGE); ok {
		out.City, out.State = m.Name, m.State
	}
	return out
}

// Document builds the fiscal document of an order.
func Document(d store.InvoiceData) fiscal.Invoice {
	rate := func(s string) decimal.Decimal {
		v, _ := decimal.NewFromString(s)
		return v
	}
	p := d.Profile
	emitter := party(d.Emitter)
	emitter.IE, emitter.CNAE = p.IE, p.CNAE
	recipient := party(d.Recipient)
	recipient.IE, recipient.Contributor = d.Recipient.StateRegistration, d.Recipient.ICMSContributor
	inv := fiscal.Invoice{Kind: d.Kind, Production: p.FiscalEnvironment == store.Producao, Emitter: emitter, Recipient: recipient, Total: d.Value.Decimal,
		Profile: fiscal.Profile{CRT: p.CRT, ICMSRate: rate(p.ICMSRate), PISRate: rate(p.PISRate), COFINSRate: rate(p.COFINSRate), CSCID: p.CSCID},
		Freight: d.FreightTotal.Decimal, FreightMode: d.FreightMode, TipoDocumento: d.TipoDocumento, Finalidade: d.FinalidadeEmissao,
		Presenca: d.PresencaComprador, ConsumidorFinal: d.ConsumidorFinal, LocalDestino: d.LocalDestino, PaymentKey: d.PaymentKey,
		Charged: d.Charged.Decimal}
	if inv.PaymentKey == "PIX" && d.ChargedAtPSP {
		// Charged at the unit's PSP: a dynamic PIX (TestChargeAtPSP).
		inv.PaymentKey = "PIX_DINAMICO"
	}
	if since, err := time.Parse(time.RFC3339, p.FiscalContingencySince); err == nil && inv.Kind == fiscal.NFe {
		// The operator switched the unit's NF-e to its state's contingency
		// authorizer, or to EPEC (unit set --fiscal-contingency).
		switch p.FiscalContingency {
		case "svc":
			// A state the table does not name is no state: the note's
			// validation refuses its address.
			if tp, err := sefaz.SVCOf(emitter.State); err == nil {
				inv.Contingency = &fiscal.Contingency{TpEmis: tp, Since: since, Reason: ContingencyReason}
			}
		case "epec":
			inv.Contingency = &fiscal.Contingency{TpEmis: 4, Since: since, Reason: EPECReason}
		}
	}
	for _, it := range d.Items {
		inv.Items = append(inv.Items, fiscal.Item{Code: it.Code, Description: it.Description, NCM: it.NCM, CFOP: it.CFOP, Unit: it.Unit,
			Quantity: it.Quantity.Decimal, UnitValue: it.UnitValue.Decimal, Total: it.Total.Decimal, IBSCBSClass: it.IBSCBSClass, GTIN: it.GTIN})
	}
	t := d.Taxes
	gross := t.TaxServiceGrossAmount.Decimal
	if gross.IsZero() {
		gross = d.Value.Decimal
	}
	inv.Service = fiscal.Service{Code: d.ServiceCod, ID: d.ServiceID, Description: d.Description, Location: d.ServiceLocation,
		Gross: gross, Deductions: t.TaxServiceDeductionAmount.Decimal, Base: t.TaxServiceBaseAmount.Decimal,
		ISSRate: t.TaxIssRatePercent.Decimal, ISSAmount: t.TaxIssAmount.Decimal, Retentions: t.RetTotalAmount.Decimal,
		Net: t.NetReceivableAmount.Decimal, Withheld: fiscal.Withholdings{PIS: t.RetPisAmount.Decimal, COFINS: t.RetCofinsAmount.Decimal,
			CSLL: t.RetCsllAmount.Decimal, IRRF: t.RetIrAmount.Decimal, CP: t.RetInssAmount.Decimal, Other: t.RetOtherAmount.Decimal,
			PISRate: t.RetPisRatePercent.Decimal, COFINSRate: t.RetCofinsRatePercent.Decimal},
		IBSCBSClass: d.ServiceClass, IBSCBSOperation: d.ServiceOperation}
	if inv.Service.Net.IsZero() {
		inv.Service.Net = d.Value.Sub(t.RetTotalAmount.Decimal)
	}
	return inv
}

// notSent is the refusal of an invoice fincom decided not to send, before
// anything left (its document not valid by the authority's schema, no
// address of the authority): never "the authority did not answer"; nil
// for a failure that may be the authority's silence.
func notSent(err error) error {
	if unanswered(err) {
		return nil
	}
	return ErrNotSent.With(map[string]string{"reason": clipReason(err.Error())})
}

// clipReason is an error's text as details carry it: without control
// characters, at most 300 characters.
func clipReason(s string) string {
	r := []rune(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s))
	if len(r) > 300 {
		r = r[:300]
	}
	return string(r)
}

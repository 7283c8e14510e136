package testmode

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"fincom/server/bank"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/fiscal/localauth"
	"fincom/server/web"
	"fincom/store"
)

var (
	errClockRequest = web.NewError(http.StatusBadRequest, "Send now (RFC 3339), advance (an ISO 8601 duration such as P1M) or reset.")
	errClockBack    = web.NewError(http.StatusBadRequest, "advance moves the clock forward only; use now to set it back.")
	errClockJump    = web.NewError(http.StatusUnprocessableEntity, "The clock moves forward at most 5 years at a time: the jobs of every day it crosses run before it answers.")
)

// maxClockYears bounds a forward move of the clock: the jobs of every day
// it crosses run before the answer, about 5 ms a day, so five years answer
// within seconds and P9999Y is refused rather than run for hours
// (TestClockBounded).
const maxClockYears = 5

// DayRunner runs the scheduled jobs of a day for one domain (the
// scheduler's; cmd wires it) and answers what they did.
type DayRunner func(ctx context.Context, db *store.DB, day store.Date) (any, error)

// isoDuration reads an ISO 8601 duration such as P1M, P10D, PT2H or
// P1Y2M3DT4H5M6S; Go durations (36h) work too.
var isoDuration = regexp.MustCompile(`^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)

func advance(from time.Time, s string) (time.Time, bool) {
	if d, err := time.ParseDuration(s); err == nil {
		return from.Add(d), d >= 0
	}
	m := isoDuration.FindStringSubmatch(strings.ToUpper(s))
	if m == nil || s == "P" || s == "PT" {
		return from, false
	}
	var v [8]int
	for i := 1; i < len(m); i++ {
		if m[i] == "" {
			continue
		}
		n, err := strconv.Atoi(m[i])
		if err != nil || n > 100000 {
			// Past any bound the clock accepts; never an overflow.
			return from, false
		}
		v[i] = n
	}
	n := func(i int) int { return v[i] }
	t := from.AddDate(n(1), n(2), 7*n(3)+n(4))
	return t.Add(time.Duration(n(5))*time.Hour + time.Duration(n(6))*time.Minute + time.Duration(n(7))*time.Second), true
}

type clockRequest struct {
	Now     string `json:"now" doc:"The domain's new now, RFC 3339."`
	Advance string `json:"advance" doc:"How far to move the clock forward, an ISO 8601 duration (P1D, P1M)."`
	Reset   bool   `json:"reset" doc:"true: back to the real clock."`
}

func (q *clockRequest) Validate() error {
	if (q.Now != "") == (q.Advance != "") && !q.Reset {
		return errClockRequest
	}
	return nil
}

type clockAnswer struct {
	Now  string `json:"now" doc:"The domain's now after the change, RFC 3339."`
	Jobs []any  `json:"jobs" doc:"The scheduled jobs the change ran, each with what it did."`
}

// testClock (test mode) sets the domain's clock: `now` freezes it at a
// moment, `advance` (P1M, P10D, PT2H, 36h) moves it forward and runs the
// jobs of every day it crosses (recurrences, notices, overdue charges,
// contract billing), `reset` gives back the real clock. The answer lists
// what each day's jobs did.
func (s *Mode) testClock(r *web.Request, q *clockRequest) (any, error) {
	name := r.DB.Name
	before := s.Domains.DomainNow(name)
	var after time.Time
	switch {
	case q.Reset:
		s.Domains.ResetClock(name)
		return clockAnswer{Now: s.Domains.DomainNow(name).Format(time.RFC3339), Jobs: []any{}}, nil
	case q.Now != "":
		t, err := time.Parse(time.RFC3339, q.Now)
		if err != nil {
			return nil, errClockRequest
		}
		after = t
	default:
		t, ok := advance(before, q.Advance)
		if !ok {
			return nil, errClockRequest
		}
		after = t
	}
	if after.Before(before) && q.Advance != "" {
		return nil, errClockBack
	}
	if after.After(before.AddDate(maxClockYears, 0, 0)) {
		return nil, errClockJump
	}
	s.Domains.SetClock(name, after)
	jobs := []any{}
	if s.RunDay != nil && after.After(before) {
		// Every day crossed, up to and including the new day.
		from, to := store.Today(before), store.Today(after)
		for d := from.AddDate(0, 0, 1); !d.After(to.Time); d = d.AddDate(0, 0, 1) {
			res, err := s.RunDay(r.Ctx, r.DB, store.Date{Time: d})
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, res)
		}
	}
	return clockAnswer{Now: after.Format(time.RFC3339), Jobs: jobs}, nil
}

// testOutbox (test mode) answers the domain's e-mails without sending or
// consuming them.
func (s *Mode) testOutbox(r *web.Request) (any, error) {
	s.WaitMail()
	mails, err := r.DB.Outbox(r.Ctx, store.EveryUnit, 500)
	for i := range mails {
		mails[i] = s.Unseal(mails[i])
	}
	return mails, err
}

// testJobRuns (test mode) answers the domain's recorded job runs.
func (s *Mode) testJobRuns(r *web.Request) (any, error) {
	return r.DB.JobRuns(r.Ctx, 500)
}

type testDomain struct {
	Domain      string     `json:"domain" doc:"The domain's name."`
	AccessToken string     `json:"access_token" doc:"Its API access token."`
	UnitToken   string     `json:"unit_token" doc:"The first unit's token."` // the first unit's
	Units       []testUnit `json:"units" doc:"Its units."`
}

type testUnit struct {
	Name      string `json:"name" doc:"The unit's name."`
	UnitToken string `json:"unit_token" doc:"Its token."`
}

// testDomainsRequest is the body of /_test/domains; every field is
// optional.
type testDomainsRequest struct {
	// Label goes into the name; with --seed it makes the name, hence every
	// token of the domain, the same run to run.
	Label string `json:"label" doc:"A word put in the domain's name."`
	// AccessToken and Snapshot: start from that snapshot of the access
	// token's domain instead of empty.
	AccessToken string `json:"access_token" doc:"With snapshot: the domain whose snapshot the new one starts from."`
	Snapshot    string `json:"snapshot" doc:"The snapshot the new domain starts from (default: empty)."`
}

func (q *testDomainsRequest) Validate() error {
	if !store.ValidLabel(q.Label) {
		return errInvalidLabel
	}
	return nil
}

// testDomains (test mode) creates a throw-away domain and answers its
// tokens, so that each test of a suite has its own isolated data: empty
// with one unit (a valid CNPJ, São Paulo), or a copy of a snapshot of
// another domain (its units with new unit tokens, its records with their
// tokens).
func (s *Mode) testDomains(r *web.Request, q *testDomainsRequest) (any, error) {
	s.Domains.ExpireThrowAway(testDomainTTL)
	create := func(name string) error { return s.Domains.Create(r.Ctx, name) }
	if q.Snapshot != "" {
		release, err := s.Mux.AuthenticateDomain(r, q.AccessToken)
		if err != nil {
			return nil, err
		}
		source := r.DB.Name
		release()
		// The source was only checked: nothing of this request may use
		// its released handle (the journal would record into it).
		r.DB = nil
		create = func(name string) error { return s.Domains.CreateFromSnapshot(r.Ctx, name, source, q.Snapshot) }
	}
	var name string
	for k := 0; ; k++ {
		name = s.Domains.ThrowAwayName(q.Label, k)
		err := create(name)
		if err == nil {
			break
		}
		if errors.Is(err, store.ErrBadSnapshot) {
			return nil, errSnapshot
		}
		if !errors.Is(err, store.ErrDomainExists) || k > 1000 {
			return nil, err
		}
	}
	if err := s.Domains.MarkThrowAway(name); err != nil {
		return nil, err
	}
	db, release, err := s.Domains.Acquire(r.Ctx, name)
	if err != nil {
		return nil, err
	}
	defer release()
	access, err := db.CreateAccessToken(r.Ctx)
	if err != nil {
		return nil, err
	}
	units, err := db.Units(r.Ctx)
	if err != nil {
		return nil, err
	}
	if len(units) == 0 {
		u, err := db.CreateUnit(r.Ctx, store.UnitInput{Name: "Unidade de teste", CNPJ: "11222333000181", CityIBGE: "3550308", IM: "123456",
			Profile: UnitProfile(s.Keyring)})
		if err != nil {
			return nil, err
		}
		units = append(units, u)
	}
	if err := s.Domains.Snapshot(r.Ctx, name, "initial"); err != nil {
		return nil, err
	}
	out := testDomain{Domain: name, AccessToken: access, UnitToken: units[0].Token}
	for _, u := range units {
		out.Units = append(out.Units, testUnit{Name: u.Name, UnitToken: u.Token})
	}
	return out, nil
}

// TestCSC is the NFC-e CSC of test units: a test environment's CSC, as a
// state issues one, never a production one.
const TestCSC = "FINCOMTESTE0123456789ABCDEF01234"

// UnitProfile is the complete fiscal profile of a test unit (throw-away
// domains, demo, fincomtest): an address in São Paulo, a state
// registration, the Simples Nacional, and an NFC-e CSC sealed with k (none
// when k is nil). Its certificate is made at its first invoice.
func UnitProfile(k *certs.Keyring) store.UnitProfile {
	p := store.UnitProfile{Street: "Avenida Paulista", Number: "1000", Complement: "Conjunto 101", District: "Bela Vista", Zip: "01310100",
		Phone: "1130000000", IE: "110042490114", CRT: 1, CNAE: "4751201", CSCID: "000001"}
	if k != nil {
		p.CSCSealed = k.Seal([]byte(TestCSC))
	}
	return p
}

type testBankReturnRequest struct {
	IDToken     string       `json:"id_token" alias:"token" required:"true" doc:"The sales order whose boleto is paid."`
	Installment int          `json:"installment" doc:"The installment paid (default: the first open)."`
	Amount      *store.Money `json:"amount" doc:"The amount paid (default: the boleto's)."`
}

func (q *testBankReturnRequest) Validate() error {
	if q.Amount != nil && !q.Amount.IsPositive() {
		return web.ErrInvalidValue
	}
	return nil
}

// returnFile answers a return file as a bank hands it out: text/plain,
// 240 columns a record, CRLF.
type returnFile struct {
	name    string
	content []byte
}

func (f returnFile) Write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=us-ascii")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename=%q`, f.name))
	h.Set("Content-Length", strconv.Itoa(len(f.content)))
	w.WriteHeader(http.StatusOK)
	w.Write(f.content)
}

// testBankReturn (test mode) is the simulated bank's return file paying
// an order's open boleto (the first, or `installment`) today, for its
// amount or `amount`: what a firm downloads from its bank, for an
// integration to hand to /import_return. Nothing changes until it is
// imported.
func (s *Mode) testBankReturn(r *web.Request, q *testBankReturnRequest) (any, error) {
	charges, err := r.DB.SalesOrderCharges(r.Ctx, r.Unit.ID, q.IDToken)
	if errors.Is(err, store.ErrNotFound) {
		return nil, web.ErrSalesOrderNotFound
	}
	if err != nil {
		return nil, err
	}
	for _, c := range charges {
		if c.PaymentKey != "BOLETO" || c.Provider == "" || !c.OurNumber.Valid ||
			(c.Status != store.ChargePending && c.Status != store.ChargeOverdue) || (q.Installment != 0 && c.Installment != q.Installment) {
			continue
		}
		a, err := r.DB.Agreement(r.Ctx, r.Unit.ID, c.Provider)
		if err != nil {
			return nil, err
		}
		b, _ := bank.Of(a.Bank, c.Provider)
		ba := billing.BankAgreement(a, r.Unit.Name, r.Unit.CNPJ)
		n, _ := strconv.ParseInt(c.OurNumber.String, 10, 64)
		our, err := b.OurNumber(ba, n)
		if err != nil {
			return nil, err
		}
		paid := c.Amount.Decimal
		if q.Amount != nil {
			paid = q.Amount.Decimal
		}
		today, due := store.Today(r.DB.Now()).Time, store.Today(r.DB.Now()).Time
		if d, err := store.ParseDateISO(c.DueDate); err == nil {
			due = d.Time
		}
		o, err := r.DB.SalesOrder(r.Ctx, r.Unit.ID, q.IDToken)
		if err != nil {
			return nil, err
		}
		file, err := b.ReturnFile(ba, 1, r.DB.Now(), []bank.ReturnItem{{Movement: "06", Our: our,
			Document: fmt.Sprintf("%s/%d", o.CodOrders, c.Installment), Due: due, Amount: c.Amount.Decimal,
			Paid: paid, Occurred: today, Credited: today}})
		if err != nil {
			return nil, err
		}
		return returnFile{name: fmt.Sprintf("RET_%s_%s.ret", c.Provider, today.Format("20060102")), content: file}, nil
	}
	return nil, store.ErrNothingToPay
}

type testPayRequest struct {
	IDToken     string       `json:"id_token" alias:"token" required:"true" doc:"The sales order paid."`
	Installment int          `json:"installment" doc:"The installment paid (default: the first open)."`
	Amount      *store.Money `json:"amount" doc:"The amount paid (default: the charge's; partial or over)."`
	Late        bool         `json:"late" doc:"true: the amount with a 2% fine and 1% a month of interest up to today."`
	// Twice delivers the PSP's webhook twice (a charge at the test PSP).
	Twice bool `json:"twice" doc:"true: the PSP's webhook is posted twice."`
}

func (q *testPayRequest) Validate() error {
	if q.Amount != nil && !q.Amount.IsPositive() {
		return web.ErrInvalidValue
	}
	return nil
}

// testPayCharge (test mode) is the payer paying an order's open charge, as
// the portal's confirmation does (revenue, reconciliation, invoice): the
// charge's amount, any amount (partial or over), or with `late` the amount
// with fine and interest up to the domain's today.
func (s *Mode) testPayCharge(r *web.Request, q *testPayRequest) (any, error) {
	public, err := r.DB.EnsurePublicToken(r.Ctx, r.Unit.ID, q.IDToken)
	if errors.Is(err, store.ErrNotFound) {
		return nil, web.ErrSalesOrderNotFound
	}
	if err != nil {
		return nil, err
	}
	amount := q.Amount
	if q.Late && amount == nil {
		charges, err := r.DB.SalesOrderCharges(r.Ctx, r.Unit.ID, q.IDToken)
		if err != nil {
			return nil, err
		}
		for _, c := range charges {
			if (c.Status == store.ChargePending || c.Status == store.ChargeOverdue) && (q.Installment == 0 || c.Installment == q.Installment) {
				due, _ := store.ParseDateISO(c.DueDate)
				m := store.NewMoney(billing.LateAmount(c.Amount.Decimal, due, store.Today(r.DB.Now())))
				amount = &m
				break
			}
		}
	}
	if out, atPSP, err := s.payAtPSP(r, q, amount); atPSP {
		return out, err
	}
	p, err := s.Billing.Pay(r.Ctx, r.DB, public, q.Installment, amount)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Payment simulated.", Data: p}, nil
}

// testOverdueCharge (test mode) makes an order's pending charges overdue.
func (s *Mode) testOverdueCharge(r *web.Request, q *web.IdRequest) (any, error) {
	n, err := r.DB.ForceOverdue(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Charges made overdue.", Data: map[string]int{"changed": n}}, nil
}

type snapshotRequest struct {
	Name string `json:"name" alias:"snapshot" required:"true" doc:"The snapshot's name."`
}

var (
	errSnapshot     = web.NewError(http.StatusBadRequest, "Unknown or invalid snapshot: use 1 to 40 lower-case letters, digits and hyphens.")
	errInvalidLabel = web.NewError(http.StatusBadRequest, "Invalid label: use 1 to 30 lower-case letters, digits and hyphens.")
)

// testSnapshot (test mode) saves the domain's state under a name.
func (s *Mode) testSnapshot(r *web.Request, q *snapshotRequest) (any, error) {
	if err := s.Domains.Snapshot(r.Ctx, r.DB.Name, q.Name); err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Snapshot saved.", Data: map[string]string{"domain": r.DB.Name, "snapshot": q.Name}}, nil
}

// testReset (test mode) brings the domain back to a snapshot; a domain
// made by /_test/domains has the snapshot "initial" (empty but for its
// unit and token).
func (s *Mode) testReset(r *web.Request, q *resetRequest) (any, error) {
	// The domain's local authorities start again from what it holds.
	defer s.Invoices.ForgetAuthorities(r.DB.Name)
	defer s.Billing.ForgetTestPSP(r.DB.Name)
	if q.Empty {
		if err := r.DB.ResetEmpty(r.Ctx); err != nil {
			return nil, err
		}
		return web.WithMessage{Message: "Domain emptied.", Data: map[string]string{"domain": r.DB.Name, "snapshot": ""}}, nil
	}
	if err := s.Domains.ResetTo(r.Ctx, r.DB.Name, q.Name, 1); err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Domain reset.", Data: map[string]string{"domain": r.DB.Name, "snapshot": q.Name}}, nil
}

// resetRequest names a snapshot, or asks for an empty domain (its units,
// tokens and users kept).
type resetRequest struct {
	Name  string `json:"name" alias:"snapshot" doc:"The snapshot the domain goes back to."`
	Empty bool   `json:"empty" doc:"true: empty the domain instead (units, tokens and users kept)."`
}

func (q *resetRequest) Validate() error {
	if q.Name == "" && !q.Empty {
		return web.ErrMissing
	}
	return nil
}

type refuseRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true" doc:"The sales order whose open charge is refused."`
	Reason  string `json:"reason" text:"multiline" doc:"The issuer's reason."`
}

func (q *refuseRequest) Validate() error {
	if q.Reason == "" {
		q.Reason = "Pagamento recusado pelo emissor do cartão (51: saldo insuficiente)"
	}
	return nil
}

// testRefuseCharge (test mode) is a refused payment attempt: the charge
// stays open; charge.refused goes to the webhooks.
func (s *Mode) testRefuseCharge(r *web.Request, q *refuseRequest) (any, error) {
	if err := r.DB.RefusePayment(r.Ctx, r.Unit.ID, q.IDToken, q.Reason); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Payment refused.", Token: q.IDToken}, nil
}

// authorityMode is test mode's choice of what the domain's local tax
// authorities (SEFAZ and the national NFS-e system) do with its next
// notes.
type authorityMode struct {
	Mode    string          `json:"mode" enum:"authorize,async,reject,deny,delay,drop_reply,unreachable,offline,drop" doc:"What the local authorities do from now on."`
	Polls   int             `json:"polls" doc:"async: the times a lot's receipt is answered 105 before its verdict (1 to 8)."`
	Code    *web.FlexString `json:"code" doc:"reject and deny: the cStat (200 to 999) or the national system's code answered."`
	Reason  string          `json:"reason" text:"multiline" doc:"reject and deny: the text answered (default: the manual's for the code)."`
	DelayMS int             `json:"delay_ms" doc:"delay: the milliseconds before each answer."`
}

var errAuthorityMode = web.NewError(http.StatusBadRequest, "Use mode authorize, async (polls 0 to 8), reject (code 200 to 999; a reason unless the manual lists the code), deny, delay (delay_ms up to 60000), drop_reply, unreachable or offline.")

func (q *authorityMode) Validate() error {
	switch q.Mode {
	case "authorize", "drop", "drop_reply", "offline", "unreachable", "deny", "async":
	case "reject":
		if q.Code == nil || *q.Code == "" {
			c := web.FlexString("301") // a denial, as before deny had a name
			q.Code = &c
		}
	case "delay":
		if q.DelayMS <= 0 || q.DelayMS > 60_000 {
			return errAuthorityMode
		}
	default:
		return errAuthorityMode
	}
	if q.Code != nil && *q.Code != "" {
		if _, _, ok := returnCode(string(*q.Code)); !ok {
			return errAuthorityMode
		}
	}
	return nil
}

// testAuthority (test mode) sets what the domain's local tax authorities
// do with its notes: authorize as they judge, reject every note with a
// code and reason (SEFAZ style, e.g. 301 "Uso Denegado: Irregularidade
// fiscal do emitente"), delay their answers, drop the next answer after
// processing the note, or go offline.
func (s *Mode) testAuthority(r *web.Request, q *authorityMode) (any, error) {
	m := localauth.Mode{Mode: q.Mode, Reason: q.Reason, DelayMS: q.DelayMS, Polls: q.Polls}
	if q.Code != nil {
		m.Code, m.National, _ = returnCode(string(*q.Code))
	}
	err := s.Invoices.SetAuthorityMode(r.Ctx, r.DB, m)
	if errors.Is(err, localauth.ErrMode) {
		return nil, errAuthorityMode
	}
	if err == nil && s.Wake != nil {
		// The held notes go now; one the new mode refuses or drops stays
		// held, as the loop would leave it.
		if werr := s.Wake(r.Ctx, r.DB); werr != nil {
			s.Mux.Log.Warn("wake the held notes", "domain", r.DB.Name, "err", werr)
		}
	}
	return m, err
}

// testAuthorityLog (test mode) answers the messages the domain's local
// authorities received, in order.
func (s *Mode) testAuthorityLog(r *web.Request) (any, error) {
	return s.Invoices.AuthorityLog(r.DB)
}

// returnCode reads a rejection's code: a cStat (a number or a numeric
// string), or the national NFS-e system's E followed by its digits.
func returnCode(s string) (int, bool, bool) {
	national := strings.HasPrefix(s, "E")
	n, err := strconv.Atoi(strings.TrimPrefix(s, "E"))
	if err != nil || n <= 0 || n > 9999 {
		return 0, false, false
	}
	return n, national, true
}

// testDomainTTL is how long a throw-away domain lives.
const testDomainTTL = 24 * time.Hour

// testWebhooks (test mode) answers the delivery log of every unit's
// webhooks, without consuming anything.
func (s *Mode) testWebhooks(r *web.Request) (any, error) {
	list, _, err := r.DB.Deliveries(r.Ctx, store.EveryUnit, store.Page{Number: 1, Size: 500})
	return list, err
}

// testDocuments (test mode) answers the generated documents: boleto lines
// and bar codes, BR Codes, invoice keys and XML.
func (s *Mode) testDocuments(r *web.Request) (any, error) {
	return r.DB.Documents(r.Ctx, 500)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docTestAuthority = "Sets, for the domain until changed, what its local tax authorities (a SEFAZ and a national NFS-e system " +
		"on loopback, reached through the production clients over mutual TLS) do with its messages. `mode`: `authorize` (as they " +
		"judge: schemas, signatures, the certificate's CNPJ, duplicates); `async` (each NF-e lot answered by a receipt, 103, whose " +
		"ask is answered 105, Lote em processamento, `polls` times, 1 by default, up to 8, before its verdict); `reject` with `code` (a cStat, 200 to 999, as a number or " +
		"a numeric string; `reason` the manual's text for the code by default; a national NFS-e system's `E0014` with its `reason` " +
		"refuses only national NFS-e; 301 when none is given) for every note; `deny` (as reject, 301 by " +
		"default); `delay` with `delay_ms` (up to 60000) before each answer; `drop_reply` (the next message is processed and its " +
		"reply lost on the wire; the mode then returns to `authorize`); `unreachable` (no connection: nothing reaches them; a " +
		"note waits held, and every change of mode sends the domain's held notes at once); `offline` (they answer 503). `drop` is " +
		"`drop_reply`'s earlier name. Example: `{\"access_token\": \"…\", \"mode\": \"reject\", \"code\": 778}`."
	docTestAuthorityLog = "The messages the domain's local tax authorities received, oldest first (the latest 1000): `service` " +
		"(the SEFAZ web service, as `NFeAutorizacao4`, or `SefinNacional`), `message` (the message's root element, as " +
		"`enviNFe`, `consSitNFe`, `envEvento`; the national system's method and path, as `POST /nfse`), `key` (the access key " +
		"it names, when it names one) and `code` (its answer's last cStat, the HTTP status, or `no reply` when the reply was " +
		"dropped). Example: `[{\"service\": \"NFeAutorizacao4\", \"message\": \"enviNFe\", \"key\": \"3526…\", \"code\": \"100\"}]`."
	docTestBankReturn = "The simulated bank's CNAB 240 return file paying an order's open boleto (`id_token`, optional `installment`) today, " +
		"for its amount or `amount`, with the headers of the unit's agreement: hand it to /import_return as a firm hands its bank's " +
		"file. Nothing changes until it is imported. 409 `There is no open charge to pay.` without an open registered boleto."
	docTestClock = "Sets (`now`, RFC 3339) or advances (`advance`, an ISO 8601 duration such as `P1M`) the domain's " +
		"clock, or `reset`s it; advancing runs the jobs of every day crossed (recurrence, overdue charges, " +
		"reminders, contract billing), so a move forward is at most 5 years (422 past it). Other domains keep their clock."
	docTestPayCharge = "The simulated payer pays an order's open charge (`id_token`, optional `installment`): its amount, " +
		"any `amount` (partial or over), or with `late` its amount with a 2% fine and 1% a month of interest " +
		"up to the domain's today; with the effects of a confirmed payment. A PIX charge at the domain's local PSP is paid there and " +
		"its webhook delivered (`twice`: two times), confirmed with the PSP as a real PSP's is (`/_test/pay_pix` tells more and can lose the webhook)."
)

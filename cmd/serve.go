package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"fincom/jobs"
	"fincom/server"
	"fincom/server/certs"
	"fincom/server/fiscal/sefaz"
	"fincom/server/https"
	"fincom/store"
	"fincom/store/replica"
)

type serveOptions struct {
	addr      string
	maxUpload int64
	uploadMem int64
	idleClose time.Duration
	publicURL string
	smtpURL   string
	smtpFrom  string
	nfWindow  time.Duration
	// nfWindowSet says --nf-cancel-window was given.
	nfWindowSet bool
	pspPoll     time.Duration
	fiscalRetry time.Duration
	inboxPoll   time.Duration
	backup      string // cron spec
	backupDir   string
	keep        int
	testMode    bool
	hooksPriv   bool
	seed        uint64
	seeded      bool // --seed given: tokens too are drawn from it
	cpuProf     string
	maxConns    int
	perClient   int
	cors        []string
	caFile      string
	endpoints   string // --fiscal-endpoints
	ibscbs      string // --ibscbs-table
	replicate   string // --replicate URL
	replKey     string // --replicate-key-file
	restoreM    bool   // --restore-missing
	locked      bool   // the caller holds the data directory's lock (demo)
	// HTTPS served by fincom itself: by ACME for the domains, or the
	// certificate files; on httpsAddr, with httpAddr answering the ACME
	// challenge and redirecting.
	domains            []string
	acmeDir, acmeEmail string
	tlsCert, tlsKey    string
	renewBefore        time.Duration
	httpsAddr          string
	httpAddr           string
	addrSet            bool // --addr given
}

// tls says fincom serves HTTPS itself.
func (o *serveOptions) tls() bool {
	return len(o.domains) > 0 || o.tlsCert != "" || o.tlsKey != ""
}

func (o *serveOptions) flags(c *cobra.Command, a *app) {
	c.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on, plain HTTP (with --https or --tls-cert: --https-addr and --http-addr)")
	c.Flags().StringSliceVar(&o.domains, "https", nil, "serve HTTPS for these domains (DOMAIN[,DOMAIN…]) with a certificate obtained and renewed by ACME (Let's Encrypt unless --acme-directory): on --https-addr, with --http-addr answering the ACME challenge and redirecting to https")
	c.Flags().StringVar(&o.acmeDir, "acme-directory", https.LetsEncrypt, "with --https: the ACME server's directory URL (a firm's own CA, a test server)")
	c.Flags().StringVar(&o.acmeEmail, "acme-email", "", "with --https: the ACME account's contact address (expiry notices)")
	c.Flags().DurationVar(&o.renewBefore, "acme-renew-before", 0, "with --https: renew a certificate this long before it ends (default a third of its lifetime; at most 720h)")
	c.Flags().StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM, the chain after it), read again when it changes; with --tls-key")
	c.Flags().StringVar(&o.tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	c.Flags().StringVar(&o.httpsAddr, "https-addr", ":443", "with --https or --tls-cert: where HTTPS is served")
	c.Flags().StringVar(&o.httpAddr, "http-addr", ":80", "with --https or --tls-cert: where plain HTTP answers the ACME challenge and redirects to https")
	c.Flags().Int64Var(&o.maxUpload, "max-upload", 25<<20, "largest multipart body in bytes")
	c.Flags().Int64Var(&o.uploadMem, "upload-memory", 100<<20, "memory all multipart bodies being read may hold at once, in bytes; an upload past it waits up to 15 s, then answers 503")
	c.Flags().StringVar(&o.publicURL, "public-url", "", "where clients reach this server, for payment links in e-mails (default http://ADDR; with --https https://DOMAIN, with --tls-cert the certificate's first name)")
	c.Flags().StringVar(&o.smtpURL, "smtp-url", os.Getenv("FINCOM_SMTP_URL"), "deliver e-mails through smtp://user:pass@host:port or smtps://... (env FINCOM_SMTP_URL); unset keeps them in the outbox")
	c.Flags().StringVar(&o.smtpFrom, "smtp-from", os.Getenv("FINCOM_SMTP_FROM"), "sender address of the e-mails (env FINCOM_SMTP_FROM)")
	c.Flags().DurationVar(&o.nfWindow, "nf-cancel-window", 24*time.Hour, "how long after authorization an invoice may be cancelled (test mode; outside it SEFAZ keeps an NF-e's and NFC-e's window)")
	c.Flags().DurationVar(&o.inboxPoll, "inbox-poll", time.Hour, "how often each unit with a certificate fetches the NF-e issued to it from the national environment once caught up (never under the hour it asks after nothing new); 0 turns the fetching off")
	c.Flags().DurationVar(&o.fiscalRetry, "fiscal-retry", jobs.FiscalRetry, "how long a note SEFAZ or the NFS-e system did not answer waits between its first 30 tries (1s to 10m; later tries wait longer, up to an hour)")
	c.Flags().DurationVar(&o.pspPoll, "psp-poll", time.Minute, "how often the open charges at the units' PSPs are asked about (a payment whose webhook never came still settles)")
	c.Flags().StringVar(&o.backup, "backup-cron", "", `back up every domain on this cron schedule, e.g. "0 3 * * *" (São Paulo time)`)
	c.Flags().StringVar(&o.backupDir, "backup-dir", "", "with --backup-cron: where the backups go (default DATA/backups)")
	c.Flags().IntVar(&o.keep, "backup-keep", 7, "with --backup-cron: backups kept per domain")
	c.Flags().StringVar(&o.caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates outbound TLS trusts besides the system's and the embedded ICP-Brasil roots (env FINCOM_CA_FILE)")
	c.Flags().StringVar(&o.replicate, "replicate", os.Getenv("FINCOM_REPLICATE"), "replicate every domain and _system.db continuously to s3://BUCKET/PREFIX?endpoint=…&region=…&force-path-style=true, in Litestream's layout (env FINCOM_REPLICATE; credentials from the standard AWS variables and files)")
	c.Flags().StringVar(&o.replKey, "replicate-key-file", os.Getenv("FINCOM_REPLICATE_KEY_FILE"), "with --replicate: seal every object with this 32-byte key (env FINCOM_REPLICATE_KEY_FILE)")
	c.Flags().BoolVar(&o.restoreM, "restore-missing", false, "with --replicate: first restore every domain (and _system.db) the bucket holds that this data directory lacks (a new machine)")
	c.Flags().StringVar(&o.endpoints, "fiscal-endpoints", "", "a JSON file of SEFAZ and NFS-e addresses overriding the shipped ones (see the README)")
	c.Flags().StringVar(&o.ibscbs, "ibscbs-table", os.Getenv("FINCOM_IBSCBS_TABLE"), "a JSON file of IBS and CBS rates, regimes and classes (cClassTrib) added to the shipped table (env FINCOM_IBSCBS_TABLE; see the README)")
	c.Flags().BoolVar(&o.hooksPriv, "webhook-allow-private", false, "let webhooks reach loopback, private and link-local addresses (implied by --test-mode)")
	c.Flags().BoolVar(&o.testMode, "test-mode", false, "serve the /api/v1/_test routes for integrators (clock, inspection, throw-away domains)")
	c.Flags().Uint64Var(&o.seed, "seed", 1, "test mode: draw tokens, secrets and throw-away names from this seed (reproducible runs); fault draws use it always")
	c.Flags().DurationVar(&o.idleClose, "idle-close", 5*time.Minute, "close a domain file unused for this long")
	c.Flags().IntVar(&a.maxOpen, "max-open-domains", 64, "domain files kept open while idle; the least recently used close first")
	c.Flags().IntVar(&o.maxConns, "max-conns", 0, "connections held at once (default: from the descriptor limit, half of it at most); past it the oldest idle one is closed")
	c.Flags().IntVar(&o.perClient, "max-conns-per-client", 0, "connections one client address may hold (default: a quarter of --max-conns)")
	c.Flags().StringSliceVar(&o.cors, "cors-origin", nil, `a browser origin whose pages may call the API and read its answers (https://app.example.com); repeat or separate with commas; "*" for any. Default: none`)
	c.Flags().StringVar(&o.cpuProf, "cpuprofile", "", "write a CPU profile (go tool pprof) to this file until the server stops")
	c.Flags().StringVar(&a.durability, "durability", "full", "full: every answered write survives a power cut; normal: faster, may lose the last writes on power loss")
}

func newServeCmd(a *app) *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the API under /api/v1",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.seeded = cmd.Flags().Changed("seed")
			o.nfWindowSet = cmd.Flags().Changed("nf-cancel-window")
			o.addrSet = cmd.Flags().Changed("addr")
			return a.serve(cmd.Context(), o)
		},
	}
	o.flags(c, a)
	return c
}

// serve runs the HTTP server until SIGINT or SIGTERM, then drains in-flight
// requests and closes every domain file cleanly.
func (a *app) serve(ctx context.Context, o serveOptions) error {
	if o.seeded && !o.testMode {
		// Tokens drawn from a known seed can be guessed: never for real data.
		return fmt.Errorf("--seed makes tokens predictable; it needs --test-mode")
	}
	if o.fiscalRetry < time.Second || o.fiscalRetry > 10*time.Minute {
		// Faster insists on SEFAZ (656 shuts the unit out for an hour);
		// slower leaves a sale's note unsent past what a buyer waits.
		return fmt.Errorf("--fiscal-retry takes 1s to 10m, not %s", o.fiscalRetry)
	}
	a.seeded, a.seed = o.seeded, o.seed
	origins, err := server.ParseOrigins(o.cors)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// A month's listing allocates megabytes over a live heap of about
		// 15 MB: at Go's default every such request ran a collection
		// (7.5 ms p50 for 1,000 entries, 5.8 ms at 200), for some 10 MB
		// more of resident memory. GOGC in the environment still rules.
		debug.SetGCPercent(200)
	}
	if o.cpuProf != "" {
		f, err := os.Create(o.cpuProf)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	if !o.locked {
		unlock, err := lockDataDir(a.dataDir)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if (o.replKey != "" || o.restoreM) && o.replicate == "" {
		return fmt.Errorf("--replicate-key-file and --restore-missing go with --replicate")
	}
	log := slog.New(slog.NewJSONHandler(a.errOut, nil))
	// Replicated, the WAL is Litestream's: it checkpoints what it copied.
	a.walOwner = o.replicate != ""
	ds, err := a.domains()
	if err != nil {
		return err
	}
	defer ds.Close()
	var conn *replica.Connection
	if o.replicate != "" {
		if conn, err = replicaConnection(ctx, o.replicate, o.replKey, o.caFile); err != nil {
			return err
		}
		// Each file's replica carries a mark the data directory keeps a
		// record of: a prefix rolled back is refused, not written onto.
		conn.KeepMarks(replica.OpenMarks(a.dataDir))
		// One installation a prefix: a new machine restoring from it takes
		// its id, any other data directory is refused.
		if err := conn.Claim(ctx, a.dataDir, o.restoreM); err != nil {
			return err
		}
		if o.restoreM {
			if err := restoreMissing(ctx, conn, ds, a.dataDir, log); err != nil {
				return err
			}
		}
	}
	if err := ds.CheckVersions(); err != nil {
		return err
	}
	// Restores handed over while no server ran.
	ds.ApplyRestores(ctx)
	sys, err := store.OpenSystem(a.dataDir, store.Durability(a.durability), nil)
	if err != nil {
		return err
	}
	defer sys.Close()

	if o.tls() && o.addrSet {
		return fmt.Errorf("--addr serves plain HTTP; with --https or --tls-cert fincom listens on --https-addr and --http-addr")
	}
	if o.publicURL == "" && !o.tls() {
		o.publicURL = "http://" + o.addr
	}
	var replicas interface {
		Statuses(now time.Time) []replica.Status
	}
	if conn != nil {
		rep := &replica.Replicator{Dir: a.dataDir, Conn: conn, Log: log}
		replicas = rep
		if err := rep.Start(ctx); err != nil {
			return err
		}
		// Closed after the domains (deferred before them: run after),
		// with a last sync of what they wrote.
		defer rep.Close(context.WithoutCancel(ctx))
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		go rep.Watch(wctx, 2*time.Second)
	}
	// The business services, shared by the routes and the scheduler.
	keys, err := a.keyring(o.testMode)
	if err != nil {
		return err
	}
	// Outbound TLS (SEFAZ, webhooks, SMTP) trusts the system's roots, the
	// ICP-Brasil roots and --ca-file.
	roots, err := certs.TrustPool(o.caFile)
	if err != nil {
		return err
	}
	var site *https.Site
	if o.tls() {
		_, port, err := net.SplitHostPort(o.httpsAddr)
		if err != nil {
			return fmt.Errorf("--https-addr: %w", err)
		}
		// The ACME cache holds the account's and the certificates' private
		// keys: readable by fincom's user only, and not a domain file, so
		// neither replicated nor backed up (a new machine obtains its own).
		if site, err = https.New(https.Config{Domains: o.domains, Directory: o.acmeDir, Email: o.acmeEmail, CacheDir: filepath.Join(a.dataDir, acmeCache),
			CertFile: o.tlsCert, KeyFile: o.tlsKey, Roots: roots, HTTPSPort: port, Log: log, RenewBefore: o.renewBefore}); err != nil {
			return err
		}
		if o.publicURL == "" {
			o.publicURL = site.URL()
		}
	}
	// A supplier's note enters the inbox signed by a certificate of the
	// ICP-Brasil chain, or of --ca-file's.
	signerRoots, err := certs.SignerPool(o.caFile)
	if err != nil {
		return err
	}
	endpoints, err := sefaz.Load()
	if err != nil {
		return err
	}
	if o.endpoints != "" {
		b, err := os.ReadFile(o.endpoints)
		if err != nil {
			return fmt.Errorf("--fiscal-endpoints: %w", err)
		}
		warnings, err := endpoints.Override(b)
		if err != nil {
			return fmt.Errorf("--fiscal-endpoints: %w", err)
		}
		for _, w := range warnings {
			log.Warn("fiscal endpoints", "warning", w)
		}
	}
	reforms, err := loadReform(o.ibscbs)
	if err != nil {
		return err
	}
	if w := reforms.Warning(a.today()); w != "" {
		log.Warn("ibscbs table", "warning", w)
	}
	if o.nfWindowSet && !o.testMode {
		log.Warn("--nf-cancel-window applies in test mode only: outside it SEFAZ keeps each NF-e's and NFC-e's cancellation window and says so when it refuses")
	}
	bill, inv, err := server.NewServices(server.ServiceOptions{PublicURL: o.publicURL, Log: log, CancelWindow: o.nfWindow,
		Keyring: keys, TestCertificates: o.testMode, Fiscal: &sefaz.Client{Endpoints: endpoints, Roots: roots}, SignerRoots: signerRoots, Clock: ds.DomainNow,
		InboxPoll: o.inboxPoll, InboxOff: o.inboxPoll <= 0, Reform: reforms})
	if err != nil {
		return err
	}
	defer bill.Close()
	// Sign-in links queued for e-mail are sealed; the mailer opens them.
	linkKeys, err := server.LinkKeyring(keys)
	if err != nil {
		return err
	}
	runner := &jobs.Runner{Domains: ds, Log: log, Billing: bill, Invoices: inv, WebhookAllowPrivate: o.hooksPriv || o.testMode, LinkKeys: linkKeys, Roots: roots,
		PSPPoll: o.pspPoll, PublicURL: o.publicURL, FiscalRetry: o.fiscalRetry}
	srv, err := server.New(ds, sys, server.Config{Version: Version, MaxMultipartBytes: o.maxUpload, UploadMemory: o.uploadMem, Logger: log, PublicURL: o.publicURL,
		Replicas: replicas, Billing: bill, Invoices: inv, TestMode: o.testMode, WebhookAllowPrivate: o.hooksPriv, Seed: o.seed, CORSOrigins: origins, LinkKeys: linkKeys,
		RunDay: func(ctx context.Context, db *store.DB, day store.Date) (any, error) {
			return runner.RunDay(ctx, db, day)
		}, Wake: runner.Wake})
	if err != nil {
		return err
	}
	// The API's document is drawn now: a server whose document cannot be
	// drawn does not start.
	if _, _, err := srv.Docs(); err != nil {
		return err
	}
	nofile := raiseNoFile()
	limits := server.ConnLimitsFor(nofile, a.maxOpen)
	if o.maxConns > 0 {
		limits.Max = o.maxConns
		limits.PerAddr = max(o.maxConns/4, 1)
	}
	if o.perClient > 0 {
		limits.PerAddr = o.perClient
	}
	ln, err := net.Listen("tcp", o.listenAddr())
	if err != nil {
		return err
	}
	handler := srv.Handler()
	if site != nil {
		handler = https.HSTS(handler)
	}
	hs := server.NewHTTPServer(handler, server.DefaultTimeouts(), log)
	ln = server.GuardConns(ln, hs, limits)
	var plain *http.Server
	var plainLn net.Listener
	if site != nil {
		hs.TLSConfig = site.TLS
		if plainLn, err = net.Listen("tcp", o.httpAddr); err != nil {
			ln.Close()
			return err
		}
		plain = server.NewHTTPServer(site.HTTP, server.DefaultTimeouts(), log)
	}
	log.Info("limits", "descriptors", nofile, "connections", limits.Max, "per_client", limits.PerAddr)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Scheduled jobs (monthly recurrence): caught up now for the days the
	// server was down, then daily.
	if o.smtpURL != "" {
		sender, err := jobs.ParseSMTP(o.smtpURL, o.smtpFrom)
		if err != nil {
			return err
		}
		sender.Roots = roots
		runner.Sender = sender
	}
	if o.backup != "" {
		if o.backupDir == "" {
			o.backupDir = filepath.Join(a.dataDir, "backups")
		}
		runner.Backup = &jobs.BackupPlan{Spec: o.backup, Dir: o.backupDir, Keep: o.keep}
	}
	stopJobs, err := runner.Start(ctx)
	if err != nil {
		return err
	}
	defer stopJobs()
	errc := make(chan error, 2)
	if site != nil {
		go func() { errc <- hs.ServeTLS(ln, "", "") }()
		go func() { errc <- plain.Serve(plainLn) }()
		go site.Obtain(ctx)
	} else {
		go func() { errc <- hs.Serve(ln) }()
	}
	mode := ""
	if o.testMode {
		// Said at start: test mode serves /_test routes that reset data,
		// move the clock and simulate payments.
		mode = " in TEST MODE (simulated payments and tax authority, /_test routes)"
	}
	if site != nil {
		fmt.Fprintf(a.out, "fincom %s listening on %s%s%s (https on %s, http on %s: ACME challenge and redirect; data %s)\n", Version, o.publicURL,
			server.Prefix, mode, ln.Addr(), plainLn.Addr(), a.dataDir)
	} else {
		fmt.Fprintf(a.out, "fincom %s listening on http://%s%s%s (data %s)\n", Version, ln.Addr(), server.Prefix, mode, a.dataDir)
	}
	if len(origins) > 0 {
		fmt.Fprintf(a.out, "CORS: pages of %s may read the answers\n", strings.Join(origins, ", "))
	}

	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	// `fincom restore` run while the server runs hands its copy over
	// through DATA/_restore; a quarter second later the domain is swapped.
	restores := time.NewTicker(250 * time.Millisecond)
	defer restores.Stop()
	for {
		select {
		case err := <-errc:
			return err
		case <-restores.C:
			for _, n := range ds.ApplyRestores(ctx) {
				log.Info("domain restored", "domain", n)
			}
		case <-tick.C:
			if n := ds.CloseIdle(o.idleClose); n > 0 {
				log.Info("closed idle domains", "count", n)
			}
		case <-ctx.Done():
			log.Info("shutting down")
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if plain != nil {
				plain.Shutdown(sctx)
			}
			if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			// What the last requests queued goes out now rather than at the
			// next start: one pass over the open domains' webhooks and
			// e-mail, within the shutdown's time (TestShutdownDelivers).
			runner.DeliverWebhooks(sctx, false)
			runner.Deliver(sctx, false)
			return nil
		}
	}
}

// acmeCache is the ACME cache's directory in the data directory.
const acmeCache = "_acme"

// listenAddr is where the API is served: --https-addr when fincom serves
// HTTPS itself, else --addr.
func (o *serveOptions) listenAddr() string {
	if o.tls() {
		return o.httpsAddr
	}
	return o.addr
}

// raiseNoFile raises the soft limit of open descriptors to the hard one
// (a shell's default soft limit of 1,024 would cap the connections and
// domains far below what the machine allows) and answers it.
func raiseNoFile() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 1024
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	}
	return l.Cur
}

// lockDataDir takes an exclusive lock on the data directory, so that two
// servers never share it and restore never runs under a server.
func lockDataDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".fincom.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("data directory %s is in use by another fincom process", dir)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// restoreMissing restores every file the bucket holds that the data
// directory lacks: each domain through the checked restore, _system.db
// as it is (serve --restore-missing).
func restoreMissing(ctx context.Context, conn *replica.Connection, ds *store.Domains, dir string, log *slog.Logger) error {
	files, err := conn.Files(ctx)
	if err != nil {
		return err
	}
	for _, f := range files {
		name := strings.TrimSuffix(f, ".db")
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil || (f != "_system.db" && !store.ValidDomainName(name)) {
			continue
		}
		if f == "_system.db" {
			pos, err := replica.Restore(ctx, conn, f, filepath.Join(dir, f), time.Time{}, replica.RestoreOptions{})
			if err != nil {
				return err
			}
			if err := replica.OpenMarks(dir).Set(f, replica.Mark(pos), true); err != nil {
				return err
			}
			continue
		}
		tmp, err := os.MkdirTemp(dir, ".replica-")
		if err != nil {
			return err
		}
		pos, err := replica.Restore(ctx, conn, f, filepath.Join(tmp, f), time.Time{}, replica.RestoreOptions{})
		if err == nil {
			err = ds.Restore(ctx, name, filepath.Join(tmp, f))
		}
		os.RemoveAll(tmp)
		if err == nil {
			err = replica.OpenMarks(dir).Set(f, replica.Mark(pos), true)
		}
		if err != nil {
			return fmt.Errorf("restore %s from the replica: %w", name, err)
		}
		log.Info("restored from the replica", "domain", name, "txid", pos.TXID.String(), "written_at", pos.At.UTC().Format(time.RFC3339))
	}
	return nil
}

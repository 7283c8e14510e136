package portal

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/web"
	"fincom/store"
)

// The portal (/portal/): server-rendered pages for a firm's people. Sign-in
// is by a single-use link sent by e-mail (store.RequestLoginLink); the
// session is a server-side record whose secret is an HttpOnly,
// SameSite=Lax cookie, and every form carries the session's CSRF token
// (TestPortalFlow). Pages call the store and the business services
// directly, never the API over HTTP.

const (
	SessionCookie = "fincom_session"
	// formCookie holds the CSRF token of the forms shown before a session
	// exists (sign-in, following a link): the form's copy must match it.
	formCookie = "fincom_form"
	// noticeCookie carries across the redirect that answers a save what
	// of it failed, for the page redirected to to show once.
	noticeCookie = "fincom_notice"
	// maxPortalForm bounds a portal form's body.
	maxPortalForm = 64 << 10
)

// Texts of the portal, in Portuguese as its pages.
const (
	PortalLinkSent    = "Se houver um usuário com esse e-mail no domínio, enviamos um link de acesso. Ele vale por 15 minutos e uma única vez."
	portalLinkInvalid = "Este link de acesso é inválido, já foi usado ou expirou. Peça um novo."
	portalFormExpired = "O formulário expirou ou não veio desta página. Recarregue a página e tente de novo."
	portalSignedOut   = "Você saiu do fincom."
	portalTooBig      = "O envio é grande demais (até 8 MiB de uma vez): nada foi salvo."
	PortalTooMany     = "Muitas tentativas de acesso. Espere alguns minutos e tente de novo."
)

// portalRequest is a page request: the signed-in user's domain, session and
// units, and the unit shown.
type portalRequest struct {
	w       http.ResponseWriter
	r       *http.Request
	ctx     context.Context
	db      *store.DB
	secret  string
	session store.Session
	units   []store.Unit // those the user has a role on
	unit    store.Unit
	grants  store.Grants
	role    store.Role           // the user's role on unit
	exports []render.ExportLinks // the page's lists' exports (exportable)
}

// page writes a portal page with the request's user, units and CSRF token.
func (p *portalRequest) page(s *Portal, status int, name, title, nav string, body any, notice, errText string) {
	units := make([]render.PortalUnit, len(p.units))
	for i, u := range p.units {
		units[i] = render.PortalUnit{Token: u.Token, Name: u.Name}
	}
	cur := render.PortalUnit{Token: p.unit.Token, Name: p.unit.Name}
	pg := render.PortalPage{Title: title, Nav: nav, User: p.session.User.Name + " <" + p.session.User.Email + ">",
		CSRF: p.session.CSRF, Units: units, Unit: cur, Notice: notice, Error: errText, Body: body, Can: p.can()}
	if p.unit.ID != 0 {
		pg.Role = roleName(p.role)
	}
	if status == http.StatusOK {
		pg.Exports = p.exports
	}
	s.portalPage(p.w, status, name, pg)
}

// portalPage writes a page under the portal's headers.
func (s *Portal) portalPage(w http.ResponseWriter, status int, name string, pg render.PortalPage) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", render.PortalCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	if err := s.Render.Portal(w, name, pg); err != nil {
		s.Log.Error("portal page", "page", name, "err", err)
	}
}

// secureCookies: cookies are Secure when fincom is reached over https.
func (s *Portal) secureCookies(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(s.PublicURL, "https://")
}

// formToken returns the CSRF token of a form shown before sign-in, setting
// its cookie when the browser has none.
func (s *Portal) formToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(formCookie); err == nil && len(c.Value) == 64 {
		return c.Value
	}
	t := store.NewSecret(32)
	http.SetCookie(w, &http.Cookie{Name: formCookie, Value: t, Path: "/portal/", HttpOnly: true, Secure: s.secureCookies(r),
		SameSite: http.SameSiteStrictMode, MaxAge: int(time.Hour / time.Second)})
	return t
}

// leaveNotice keeps text for the next page of the record of token to show
// (takeNotice): a save that partly failed is answered by a redirect like
// any other, so that a reload repeats nothing, and its page still says
// what failed.
func (s *Portal) leaveNotice(p *portalRequest, token, text string) {
	if r := []rune(text); len(r) > 1000 {
		text = string(r[:1000]) + "…"
	}
	http.SetCookie(p.w, &http.Cookie{Name: noticeCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(token + "\n" + text)), Path: "/portal/",
		HttpOnly: true, Secure: s.secureCookies(p.r), SameSite: http.SameSiteStrictMode, MaxAge: 120})
}

// takeNotice answers the text leaveNotice kept for the record of token,
// once: its cookie is cleared.
func (s *Portal) takeNotice(p *portalRequest, token string) string {
	c, err := p.r.Cookie(noticeCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(p.w, &http.Cookie{Name: noticeCookie, Value: "", Path: "/portal/", HttpOnly: true, Secure: s.secureCookies(p.r),
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	kept, err := base64.RawURLEncoding.DecodeString(c.Value)
	of, text, _ := strings.Cut(string(kept), "\n")
	if err != nil || of != token || !utf8.ValidString(text) {
		return ""
	}
	return text
}

// readPortalForm parses a portal form (at most maxPortalForm bytes), or
// an upload's (multipart, at most maxPortalUpload, in memory alone within
// the uploads' budget, as the API's: never spilled to a file); free gives
// back what it holds, once the request is answered.
func (s *Portal) readPortalForm(w http.ResponseWriter, r *http.Request) (free func(), err error) {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		return s.Uploads.ReadForm(w, r, maxPortalUpload)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPortalForm)
	return func() {}, r.ParseForm()
}

// readSignInForm parses a sign-in form (at most maxPortalForm bytes):
// never a multipart body, as no sign-in form sends a file.
func readSignInForm(w http.ResponseWriter, r *http.Request) error {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return http.ErrNotSupported
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPortalForm)
	return r.ParseForm()
}

// uploadsBusy answers a form that found no room in the uploads' budget.
func uploadsBusy(w http.ResponseWriter) {
	http.Error(w, "Há envios demais neste momento: tente de novo em instantes.", http.StatusServiceUnavailable)
}

// checkFormToken: a pre-session form's token must be its cookie's.
func checkFormToken(r *http.Request) bool {
	c, err := r.Cookie(formCookie)
	return err == nil && c.Value != "" && (store.Session{CSRF: c.Value}).CheckCSRF(r.PostFormValue("csrf"))
}

func (s *Portal) portalForbidden(w http.ResponseWriter, r *http.Request) {
	s.portalPage(w, http.StatusForbidden, "login", render.PortalPage{Title: "Entrar", CSRF: s.formToken(w, r), Error: portalFormExpired,
		Body: render.LoginForm{}})
}

// portalLoginForm: GET /portal/login.
func (s *Portal) portalLoginForm(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	notice := ""
	if r.URL.Query().Get("saiu") != "" {
		notice = portalSignedOut
	}
	s.portalPage(w, http.StatusOK, "login", render.PortalPage{Title: "Entrar", CSRF: s.formToken(w, r), Notice: notice, Body: render.LoginForm{}})
}

// portalLogin: POST /portal/login. The answer is the same, and as quick,
// whether or not the domain and the user exist: the e-mail is looked for
// and queued after the answer (queueLoginLink), so nothing in the answer
// or its timing depends on it (TestPortalFlow, TestSignInTiming).
func (s *Portal) portalLogin(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if ok, wait := s.signIn.perAddr.Take(web.PeerAddr(r)); !ok {
		s.portalTooMany(w, r, wait)
		return
	}
	if readSignInForm(w, r) != nil || !checkFormToken(r) {
		s.portalForbidden(w, r)
		return
	}
	domain := strings.TrimSpace(strings.ToLower(r.PostFormValue("domain")))
	email := strings.TrimSpace(r.PostFormValue("email"))
	if ok, wait := s.signIn.perUser.Take(domain + " " + strings.ToLower(email)); !ok {
		s.portalTooMany(w, r, wait)
		return
	}
	s.queueLoginLink(domain, email)
	s.portalPage(w, http.StatusOK, "login", render.PortalPage{Title: "Entrar", CSRF: s.formToken(w, r), Notice: PortalLinkSent,
		Body: render.LoginForm{Domain: domain, Email: email}})
}

// signInLimits bound sign-in requests: per client address (a script
// walking e-mails or domains, or guessing links) and per domain and
// e-mail (one inbox flooded from many addresses). Past them the portal
// answers 429 with Retry-After (TestSignInRateLimited).
type signInLimits struct {
	perAddr, perUser *web.RateLimiter
}

func newSignInLimits() signInLimits {
	return signInLimits{perAddr: web.NewRateLimiter(20, time.Minute), perUser: web.NewRateLimiter(5, 15*time.Minute)}
}

// maxQueuing bounds the sign-in e-mails being looked up and queued at
// once; past it a request's e-mail is dropped (and logged).
const maxQueuing = 32

// portalTooMany answers a sign-in request past its limits.
func (s *Portal) portalTooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
	s.portalPage(w, http.StatusTooManyRequests, "login", render.PortalPage{Title: "Entrar", CSRF: s.formToken(w, r), Error: PortalTooMany,
		Body: render.LoginForm{}})
}

// queueLoginLink looks for the user and queues the sign-in e-mail in the
// background, bounded by maxQueuing; WaitLoginMail waits for those under
// way.
func (s *Portal) queueLoginLink(domain, email string) {
	s.mailing.Add(1)
	select {
	case s.queuing <- struct{}{}:
	default:
		s.mailing.Done()
		s.Log.Warn("portal sign-in link not queued: too many at once", "domain", domain)
		return
	}
	go func() {
		defer func() { <-s.queuing; s.mailing.Done() }()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.sendLoginLink(ctx, domain, email); err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrNoDomain) &&
			!errors.Is(err, store.ErrTooManyLinks) {
			s.Log.Error("portal sign-in link", "domain", domain, "err", err)
		}
	}()
}

// WaitLoginMail waits until the sign-in e-mails asked for are queued.
func (s *Portal) WaitLoginMail() { s.mailing.Wait() }

// sendLoginLink queues the sign-in e-mail of the domain's user with this
// address; ErrNotFound or ErrNoDomain when there is none. The link is
// sealed with the server's LinkKeys: the queued body holds
// store.SealedMark where it goes, and no copy of the file holds a link
// that signs in (TestLoginLinkSealedAtRest).
func (s *Portal) sendLoginLink(ctx context.Context, domain, email string) error {
	if !store.ValidDomainName(domain) || !s.Domains.Exists(domain) || email == "" || len(email) > 254 {
		return store.ErrNoDomain
	}
	db, release, err := s.Domains.Acquire(ctx, domain)
	if err != nil {
		return err
	}
	defer release()
	var mailErr error
	_, err = db.RequestLoginLink(ctx, email, func(u store.User, link string) *store.Notice {
		subject, body, err := s.Render.Mail("portal_login", render.MailData{Customer: u.Name, LoginURL: LoginURL(s.PublicURL, store.SealedMark)})
		if err != nil {
			mailErr = err
			return nil
		}
		return &store.Notice{Kind: "portal_login", To: u.Email, Subject: subject, Body: body,
			Sealed: s.LinkKeys.Seal([]byte(url.QueryEscape(link)))}
	})
	if err == nil {
		err = mailErr
	}
	return err
}

// Unsealed is a listed e-mail with its sealed link opened (test mode's
// outbox, which plays the user's inbox).
func (s *Portal) Unsealed(m store.Mail) store.Mail {
	if len(m.Sealed) == 0 {
		return m
	}
	if secret, err := s.LinkKeys.Open(m.Sealed); err == nil {
		m.Body = strings.ReplaceAll(m.Body, store.SealedMark, string(secret))
	}
	return m
}

// LoginURL is the address of a sign-in link's secret on the server reached
// at publicURL.
func LoginURL(publicURL, secret string) string {
	return strings.TrimRight(publicURL, "/") + "/portal/link?t=" + url.QueryEscape(secret)
}

// portalLinkForm: GET /portal/link?t=… shows a button that spends the
// link: following a link (or a mail scanner fetching it) spends nothing.
func (s *Portal) portalLinkForm(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if ok, wait := s.signIn.perAddr.Take(web.PeerAddr(r)); !ok {
		s.portalTooMany(w, r, wait)
		return
	}
	t := r.URL.Query().Get("t")
	if _, ok := store.TokenDomain(t); !ok || !strings.HasPrefix(t, "fcl_") {
		s.portalPage(w, http.StatusNotFound, "login", render.PortalPage{Title: "Entrar", CSRF: s.formToken(w, r), Error: portalLinkInvalid, Body: render.LoginForm{}})
		return
	}
	s.portalPage(w, http.StatusOK, "link", render.PortalPage{Title: "Entrar", CSRF: s.formToken(w, r), Body: t})
}

// portalLink: POST /portal/link spends the link and starts the session.
func (s *Portal) portalLink(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if ok, wait := s.signIn.perAddr.Take(web.PeerAddr(r)); !ok {
		s.portalTooMany(w, r, wait)
		return
	}
	if readSignInForm(w, r) != nil || !checkFormToken(r) {
		s.portalForbidden(w, r)
		return
	}
	t := r.PostFormValue("t")
	domain, ok := store.TokenDomain(t)
	invalid := func() {
		s.portalPage(w, http.StatusNotFound, "login", render.PortalPage{Title: "Entrar", CSRF: s.formToken(w, r), Error: portalLinkInvalid, Body: render.LoginForm{}})
	}
	if !ok || !strings.HasPrefix(t, "fcl_") || !s.Domains.Exists(domain) {
		invalid()
		return
	}
	db, release, err := s.Domains.Acquire(r.Context(), domain)
	if err != nil {
		invalid()
		return
	}
	defer release()
	ctx := store.WithAudit(r.Context(), "portal", "portal:sign-in", "", 0)
	secret, _, err := db.StartSession(ctx, t)
	if err != nil {
		if !errors.Is(err, store.ErrLinkInvalid) {
			s.Log.Error("portal session", "domain", domain, "err", err)
		}
		invalid()
		return
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: secret, Path: "/portal/", HttpOnly: true, Secure: s.secureCookies(r),
		// Max-Age, not Expires: the browser's clock need not be fincom's
		// (test mode moves fincom's). The server ends it either way.
		SameSite: http.SameSiteLaxMode, MaxAge: int(store.SessionLifetime / time.Second)})
	http.Redirect(w, r, "/portal/", http.StatusSeeOther)
}

// withSession runs h for a signed-in user: GETs without a session go to
// the sign-in page, POSTs without the session's CSRF token answer 403.
func (s *Portal) withSession(h func(p *portalRequest)) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		c, err := r.Cookie(SessionCookie)
		var domain string
		ok := err == nil
		if ok {
			domain, ok = store.TokenDomain(c.Value)
			ok = ok && strings.HasPrefix(c.Value, "fcs_") && s.Domains.Exists(domain)
		}
		signIn := func() {
			if r.Method == http.MethodPost {
				s.portalForbidden(w, r)
				return
			}
			http.Redirect(w, r, "/portal/login", http.StatusSeeOther)
		}
		if !ok {
			signIn()
			return
		}
		db, release, err := s.Domains.Acquire(r.Context(), domain)
		if err != nil {
			signIn()
			return
		}
		defer release()
		sess, err := db.SessionBySecret(r.Context(), c.Value)
		if err != nil {
			signIn()
			return
		}
		var tooBig *http.MaxBytesError
		if r.Method == http.MethodPost {
			free, err := s.readPortalForm(w, r)
			if errors.Is(err, web.ErrUploadsBusy) {
				uploadsBusy(w)
				return
			}
			if err == nil {
				defer free()
			}
			if !errors.As(err, &tooBig) && (err != nil || !sess.CheckCSRF(r.PostFormValue("csrf"))) {
				s.portalForbidden(w, r)
				return
			}
		}
		all, err := db.Units(r.Context())
		var grants store.Grants
		if err == nil {
			grants, err = db.UserGrants(r.Context(), sess.UserID)
		}
		if err != nil {
			s.Log.Error("portal units", "domain", domain, "err", err)
			http.Error(w, "Algo deu errado.", http.StatusInternalServerError)
			return
		}
		web.RequestInfo(r.Context()).Domain = domain
		p := &portalRequest{w: w, r: r, db: db, secret: c.Value, session: sess, grants: grants}
		// The user sees only the units it has a role on.
		want := r.URL.Query().Get("unit")
		for _, u := range all {
			if grants.On(u.ID) == "" {
				continue
			}
			p.units = append(p.units, u)
			if p.unit.Token == "" || u.Token == want {
				p.unit = u
			}
		}
		p.role = grants.On(p.unit.ID)
		if tooBig != nil {
			// Nothing was read, the CSRF token included: the page only
			// says so.
			p.ctx = r.Context()
			p.page(s, http.StatusRequestEntityTooLarge, "units", "Envio grande demais", "", []render.PortalUnit{}, "", portalTooBig)
			return
		}
		// Every change made through the portal is audited under the user.
		p.ctx = store.WithAudit(r.Context(), store.PortalActor(sess.User), "portal:"+strings.TrimPrefix(r.URL.Path, "/portal"), "", p.unit.ID)
		if r.Method == http.MethodPost && !s.mayPost(p) {
			p.page(s, http.StatusForbidden, "units", "Sem permissão", "", []render.PortalUnit{}, "", roleRefusal(p.role))
			return
		}
		h(p)
	}
}

// portalLogout: POST /portal/logout ends the session.
func (s *Portal) portalLogout(p *portalRequest) {
	if err := p.db.EndSession(p.ctx, p.secret); err != nil {
		s.Log.Error("portal sign-out", "err", err)
	}
	http.SetCookie(p.w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/portal/", HttpOnly: true, Secure: s.secureCookies(p.r),
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
	http.Redirect(p.w, p.r, "/portal/login?saiu=1", http.StatusSeeOther)
}

// portalAsset: GET /portal/assets/NAME, the embedded style sheet and script.
func (s *Portal) portalAsset(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	b, ct, ok := render.PortalAsset(ps.ByName("name"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(b)
}

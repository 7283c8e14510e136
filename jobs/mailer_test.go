package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"fincom/render"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/store"
)

// smtpServer is a minimal SMTP server for tests: it records every message
// and refuses the first refuse recipients with 451 (a temporary failure).
type smtpServer struct {
	ln     net.Listener
	mu     sync.Mutex
	got    []string
	refuse int
}

func newSMTPServer(t *testing.T, refuse int) *smtpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpServer{ln: ln, refuse: refuse}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(l string) { c.Write([]byte(l + "\r\n")) }
	say("220 test ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250-test")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "MAIL"):
			say("250 ok")
		case strings.HasPrefix(cmd, "RCPT"):
			s.mu.Lock()
			refuse := s.refuse > 0
			s.refuse--
			s.mu.Unlock()
			if refuse {
				say("451 try again later")
			} else {
				say("250 ok")
			}
		case cmd == "DATA":
			say("354 go on")
			var msg strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil || l == ".\r\n" {
					break
				}
				msg.WriteString(l)
			}
			s.mu.Lock()
			s.got = append(s.got, msg.String())
			s.mu.Unlock()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		case cmd == "RSET", cmd == "NOOP":
			say("250 ok")
		default:
			say("502 unknown")
		}
	}
}

func (s *smtpServer) messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// chargedWorld is a world whose order has an issued boleto charge due on
// 2026-12-10, reminders 3 days before, to cliente@example.com.
func chargedWorld(t *testing.T) *world {
	w := newWorld(t, time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC))
	w.fields.Recurrence = false
	w.fields.NotifyDaysCharge = 3
	w.fields.NotifyEmailCharge = "Cliente <cliente@example.com>"
	w.fields.NotifyEmailAlert = "financeiro@acme.example"
	tok := w.order("2026-12-10")
	ctx := context.Background()
	plan, err := w.db.PrepareCharges(ctx, w.unit.ID, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.db.CompleteCharge(ctx, plan.Charges[0].Token, store.IssuedCharge{Ref: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	rd, err := render.New()
	if err != nil {
		t.Fatal(err)
	}
	w.runner.Billing = &billing.Service{Render: rd, Links: render.NewLinks("https://pay.example")}
	return w
}

func TestNoticesAndOverdue(t *testing.T) {
	w := chargedWorld(t)
	ctx := context.Background()
	w.at("2026-12-06T12:00:00Z") // 4 days before: nothing
	w.at("2026-12-07T12:00:00Z") // 3 days before: the reminder
	w.at("2026-12-07T18:00:00Z") // again the same day: still one
	mails, _ := w.db.Outbox(ctx, store.EveryUnit, 10)
	if len(mails) != 1 || mails[0].Kind != "charge_notice" || !strings.Contains(mails[0].Subject, "vence em 3 dia(s)") ||
		!strings.Contains(mails[0].Body, "https://pay.example/api/v1/sales_orders/public_payment/fcp_acme_") {
		t.Fatalf("outbox %+v", mails)
	}
	w.at("2026-12-10T12:00:00Z") // the due day: its reminder
	w.at("2026-12-11T12:00:00Z") // past due: OVERDUE, and the alert
	w.at("2026-12-12T12:00:00Z") // one alert only
	all, _ := w.db.SalesOrders(ctx, w.unit, store.SalesOrderFilter{From: "2026-01-01", To: "2027-01-01"}).All()
	if all[0].ChargeStatus != store.ChargeOverdue {
		t.Fatalf("charge status %s", all[0].ChargeStatus)
	}
	mails, _ = w.db.Outbox(ctx, store.EveryUnit, 10)
	if len(mails) != 3 || mails[0].Kind != "charge_overdue" || mails[0].To != "financeiro@acme.example" || !strings.Contains(mails[0].Body, "10/12/2026") ||
		mails[1].Kind != "charge_reminder" || !strings.Contains(mails[1].Subject, "vence hoje") {
		t.Fatalf("outbox %+v", mails)
	}
}

// TestSMTPDelivery: the outbox goes out through a real SMTP conversation;
// a temporary refusal is tried again later, with backoff.
func TestSMTPDelivery(t *testing.T) {
	w := chargedWorld(t)
	ctx := context.Background()
	w.at("2026-12-07T12:00:00Z")
	srv := newSMTPServer(t, 1)
	sender, err := ParseSMTP("smtp://"+srv.ln.Addr().String(), "Acme <cobranca@acme.example>")
	if err != nil {
		t.Fatal(err)
	}
	w.runner.Sender = sender
	if err := w.runner.Deliver(ctx, true); err != nil {
		t.Fatal(err)
	}
	mails, _ := w.db.Outbox(ctx, store.EveryUnit, 10)
	if mails[0].Status != "pending" || mails[0].Attempts != 1 || !strings.Contains(mails[0].LastError.String, "451") {
		t.Fatalf("after a refusal: %+v", mails[0])
	}
	w.runner.Deliver(ctx, true) // not due yet: the backoff holds it
	if len(srv.messages()) != 0 {
		t.Fatal("sent before its next try")
	}
	w.now = w.now.Add(2 * time.Minute)
	if err := w.runner.Deliver(ctx, true); err != nil {
		t.Fatal(err)
	}
	msgs := srv.messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "To: Cliente <cliente@example.com>") || !strings.Contains(msgs[0], "=?utf-8?q?") ||
		!strings.Contains(msgs[0], "Content-Type: text/plain; charset=UTF-8") {
		t.Fatalf("messages %q", msgs)
	}
	mails, _ = w.db.Outbox(ctx, store.EveryUnit, 10)
	if mails[0].Status != "sent" || mails[0].Attempts != 2 {
		t.Fatalf("after delivery: %+v", mails[0])
	}
	if _, err := ParseSMTP("http://x", "a@b.c"); err == nil {
		t.Fatal("bad scheme accepted")
	}
}

// TestSMTPAttachments: a message's files (an invoice's XML) travel as a
// multipart/mixed message that a mail reader takes apart again, byte for
// byte; the outbox lists them.
func TestSMTPAttachments(t *testing.T) {
	w := newWorld(t, time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC))
	ctx := context.Background()
	doc := []byte(`<?xml version="1.0" encoding="UTF-8"?><CompNfse>` + strings.Repeat("<Discriminacao>Serviço prestado</Discriminacao>", 40) + `</CompNfse>`)
	file := store.Attachment{Name: "35261111222333000181550010000000011000000019.xml", ContentType: "application/xml", Data: doc}
	err := w.db.QueueInvoiceNotice(ctx, w.unit.ID, w.order("2026-12-10"), store.Notice{Kind: "invoice_issued",
		To: "Cliente <cliente@example.com>", Subject: "Nota fiscal emitida", Body: "Olá,\nsegue a nota.", Attachments: []store.Attachment{file}})
	if err != nil {
		t.Fatal(err)
	}
	mails, _ := w.db.Outbox(ctx, store.EveryUnit, 10)
	if len(mails) != 1 || len(mails[0].Attachments) != 1 ||
		mails[0].Attachments[0] != (store.AttachmentInfo{Name: file.Name, ContentType: file.ContentType, Size: int64(len(doc))}) {
		t.Fatalf("outbox %+v", mails)
	}
	srv := newSMTPServer(t, 0)
	if w.runner.Sender, err = ParseSMTP("smtp://"+srv.ln.Addr().String(), "Acme <nf@acme.example>"); err != nil {
		t.Fatal(err)
	}
	if err := w.runner.Deliver(ctx, true); err != nil {
		t.Fatal(err)
	}
	msgs := srv.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages sent", len(msgs))
	}
	// RFC 5322: no line over 998 characters; RFC 2045: base64 in lines of
	// at most 76.
	for _, l := range strings.Split(msgs[0], "\r\n") {
		if len(l) > 998 || len(l) > 76 && strings.Trim(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") == "" {
			t.Fatalf("line of %d characters: %.80q", len(l), l)
		}
	}
	m, err := mail.ReadMessage(strings.NewReader(msgs[0]))
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("content type %q %v", m.Header.Get("Content-Type"), err)
	}
	parts := multipart.NewReader(m.Body, params["boundary"])
	text, err := parts.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(text); text.Header.Get("Content-Type") != "text/plain; charset=UTF-8" || string(b) != "Olá,\r\nsegue a nota." {
		t.Fatalf("text part %v %q", text.Header, b)
	}
	att, err := parts.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, att))
	if err != nil || att.FileName() != file.Name || !strings.HasPrefix(att.Header.Get("Content-Type"), "application/xml") || !bytes.Equal(got, doc) {
		t.Fatalf("attachment %v %q (%d bytes) %v", att.Header, att.FileName(), len(got), err)
	}
	if _, err := parts.NextPart(); err != io.EOF {
		t.Fatalf("a third part: %v", err)
	}
	if mails, _ = w.db.Outbox(ctx, store.EveryUnit, 10); mails[0].Status != "sent" {
		t.Fatalf("after delivery: %+v", mails[0])
	}
}

// TestSealedLinkDelivered: a sign-in e-mail queued with its link sealed is
// sent with the link opened by the server's keys; the sent message keeps
// no sealed copy; under other keys (a server restarted without a secrets
// key) it is not sent, and says why.
func TestSealedLinkDelivered(t *testing.T) {
	w := chargedWorld(t)
	ctx := context.Background()
	if _, err := w.db.CreateUser(ctx, "Ana", "ana@example.com"); err != nil {
		t.Fatal(err)
	}
	keys, _ := certs.NewKeyring(bytes.Repeat([]byte{7}, 32))
	other, _ := certs.NewKeyring(bytes.Repeat([]byte{8}, 32))
	queue := func() string {
		secret, err := w.db.RequestLoginLink(ctx, "ana@example.com", func(u store.User, link string) *store.Notice {
			return &store.Notice{Kind: "portal_login", To: u.Email, Subject: "Acesso", Body: "Entre: https://f.example/portal/link?t=" + store.SealedMark + "\n",
				Sealed: keys.Seal([]byte(link))}
		})
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	srv := newSMTPServer(t, 0)
	sender, err := ParseSMTP("smtp://"+srv.ln.Addr().String(), "Acme <acesso@acme.example>")
	if err != nil {
		t.Fatal(err)
	}
	w.runner.Sender = sender
	w.runner.LinkKeys = other
	queue()
	if err := w.runner.Deliver(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, m := range srv.messages() {
		if strings.Contains(m, "portal/link") {
			t.Fatalf("sent under other keys: %q", m)
		}
	}
	mails, _ := w.db.Outbox(ctx, store.EveryUnit, 20)
	if mails[0].Kind != "portal_login" || !strings.Contains(mails[0].LastError.String, "cannot be opened") {
		t.Fatalf("under other keys: %+v", mails[0])
	}
	w.runner.LinkKeys = keys
	secret := queue()
	if err := w.runner.Deliver(ctx, true); err != nil {
		t.Fatal(err)
	}
	sent := false
	for _, m := range srv.messages() {
		sent = sent || strings.Contains(m, "https://f.example/portal/link?t="+secret)
	}
	if !sent {
		t.Fatalf("the opened link was not sent: %q", srv.messages())
	}
	mails, _ = w.db.Outbox(ctx, store.EveryUnit, 20)
	if mails[0].Status != "sent" || mails[0].Sealed != nil || strings.Contains(mails[0].Body, secret) {
		t.Fatalf("after sending: %+v", mails[0])
	}
}

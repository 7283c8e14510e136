package jobs

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"fincom/store"
)

// Sender delivers one e-mail.
type Sender interface {
	Send(ctx context.Context, to, subject, body string, files []store.Attachment) error
}

// SMTP sends through an SMTP server: smtp://user:pass@host:587 (STARTTLS
// when the server offers it) or smtps://user:pass@host:465 (TLS from the
// start).
type SMTP struct {
	addr, host string
	implicit   bool
	auth       smtp.Auth
	from       string
	// Timeout bounds one delivery.
	Timeout time.Duration
	// Roots are what the server's certificate is checked against
	// (certs.TrustPool; nil: the system's).
	Roots *x509.CertPool
}

// ParseSMTP reads an smtp:// or smtps:// URL and the sender address.
func ParseSMTP(raw, from string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, fmt.Errorf("smtp url %q: use smtp://user:pass@host:port or smtps://user:pass@host:port", raw)
	}
	if _, err := mail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("smtp from %q: %w", from, err)
	}
	s := &SMTP{host: u.Hostname(), implicit: u.Scheme == "smtps", from: from, Timeout: 30 * time.Second}
	port := u.Port()
	if port == "" {
		port = map[bool]string{true: "465", false: "587"}[s.implicit]
	}
	s.addr = net.JoinHostPort(s.host, port)
	if u.User != nil {
		pass, _ := u.User.Password()
		s.auth = smtp.PlainAuth("", u.User.Username(), pass, s.host)
	}
	return s, nil
}

// message builds an RFC 5322 message in UTF-8: plain text, or with files
// a multipart/mixed one whose first part is the text and each file a
// base64 part (RFC 2045's 76-character lines).
func (s *SMTP) message(to, subject, body string, files []store.Attachment) []byte {
	id := make([]byte, 12)
	rand.Read(id)
	host := s.from[strings.LastIndexByte(s.from, '@')+1:]
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@%s>\r\nMIME-Version: 1.0\r\n", s.from, to,
		mime.QEncoding.Encode("utf-8", subject), time.Now().Format(time.RFC1123Z), hex.EncodeToString(id), strings.Trim(host, ">"))
	text := strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\r\n")
	const textHeader = "Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n"
	if len(files) == 0 {
		b.WriteString(textHeader + "\r\n" + text)
		return b.Bytes()
	}
	mw := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "Content-Type: multipart/mixed;\r\n\tboundary=%q\r\n\r\n", mw.Boundary())
	part, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain; charset=UTF-8"}, "Content-Transfer-Encoding": {"8bit"}})
	io.WriteString(part, text)
	for _, f := range files {
		part, _ = mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {mime.FormatMediaType(f.ContentType, map[string]string{"name": f.Name})},
			"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": f.Name})},
			"Content-Transfer-Encoding": {"base64"},
		})
		enc := base64.StdEncoding.EncodeToString(f.Data)
		for len(enc) > 76 {
			io.WriteString(part, enc[:76]+"\r\n")
			enc = enc[76:]
		}
		io.WriteString(part, enc+"\r\n")
	}
	mw.Close()
	return b.Bytes()
}

// Send delivers one message.
func (s *SMTP) Send(ctx context.Context, to, subject, body string, files []store.Attachment) error {
	rcpt, err := mail.ParseAddress(to)
	if err != nil {
		return fmt.Errorf("recipient %q: %w", to, err)
	}
	from, _ := mail.ParseAddress(s.from)
	d := net.Dialer{Timeout: s.Timeout}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return err
	}
	conn.SetDeadline(time.Now().Add(s.Timeout))
	if s.implicit {
		conn = tls.Client(conn, &tls.Config{ServerName: s.host, RootCAs: s.Roots, MinVersion: tls.VersionTLS12})
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && !s.implicit {
		if err := c.StartTLS(&tls.Config{ServerName: s.host, RootCAs: s.Roots, MinVersion: tls.VersionTLS12}); err != nil {
			return err
		}
	}
	if s.auth != nil {
		if err := c.Auth(s.auth); err != nil {
			return err
		}
	}
	if err := c.Mail(from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(rcpt.Address); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(s.message(to, subject, body, files)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

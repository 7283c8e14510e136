// Package psp speaks to a firm's PSP through the Banco Central's API Pix
// (2.9.0): OAuth 2.0 client credentials (HTTP Basic to the token URL)
// over mutual TLS with the certificate the PSP issued, then JSON calls
// with the access token, which is cached until it expires and fetched
// again once when the PSP answers 401. A PSP's error
// (application/problem+json) is a *Problem; any answer is bounded and
// read as input like any other.
package psp

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"fincom/server/certs"
)

// Client is one unit's connection to its PSP. Its zero value is not
// usable: give it the addresses, the client's id and secret, the
// certificate and the roots to trust (certs.TrustPool).
type Client struct {
	BaseURL, TokenURL string
	ClientID, Secret  string
	Cert              certs.Certificate
	Roots             *x509.CertPool
	// PixKey is the unit's key at the PSP, its charges' key.
	PixKey string
	// Timeout bounds one call (30 s when 0).
	Timeout time.Duration
	// Now is the clock the token's expiry is judged by (time.Now when nil).
	Now func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
	// clients keeps the connection to the PSP between calls.
	clients certs.Clients
}

// Errors of a call.
var (
	// ErrAnswer is an answer that is not the PSP's: not JSON, too large,
	// or without what the call needs.
	ErrAnswer = errors.New("the PSP's answer is not one")
	// ErrUnauthorized is a PSP that refuses the client's credentials.
	ErrUnauthorized = errors.New("the PSP refused the client's credentials")
)

// maxAnswer bounds what a PSP may answer.
const maxAnswer = 1 << 20

// Problem is a PSP's error, as RFC 7807 and the API Pix write it.
type Problem struct {
	Status int    `json:"status"`
	Type   string `json:"type"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

func (p *Problem) Error() string {
	if p.Detail != "" {
		return fmt.Sprintf("the PSP answered %d %s: %s", p.Status, p.Title, p.Detail)
	}
	return fmt.Sprintf("the PSP answered %d %s", p.Status, p.Title)
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Client) http() *http.Client {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	h := *c.clients.Get(c.Cert, c.Roots, timeout) // its transport shared
	h.Timeout = timeout
	return &h
}

// Token answers an access token: the cached one until a minute before it
// expires, else a new one from the token URL (client credentials, HTTP
// Basic).
func (c *Client) Token(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.now().Before(c.expires.Add(-time.Minute)) {
		return c.token, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.Secret))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http().Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := read(resp)
	if err != nil {
		return "", err
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusBadRequest:
		return "", fmt.Errorf("%w (HTTP %d at the token URL): check --client-id and the secret", ErrUnauthorized, resp.StatusCode)
	case resp.StatusCode >= 500:
		// The PSP's own failure, its status kept (a refusal of a charge
		// is a 4xx of the API, never of the token URL).
		return "", &Problem{Status: resp.StatusCode, Title: "at the token URL"}
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("%w: HTTP %d at the token URL", ErrAnswer, resp.StatusCode)
	}
	var t struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" || !strings.EqualFold(t.TokenType, "bearer") || t.ExpiresIn <= 0 {
		return "", fmt.Errorf("%w: the token URL answered no bearer token", ErrAnswer)
	}
	c.token, c.expires = t.AccessToken, c.now().Add(time.Duration(t.ExpiresIn)*time.Second)
	return c.token, nil
}

// forget drops the cached token when it is still tok.
func (c *Client) forget(tok string) {
	c.mu.Lock()
	if c.token == tok {
		c.token = ""
	}
	c.mu.Unlock()
}

// call sends a JSON body (nil: none) to path under the base URL with the
// access token, fetching a new token once if the PSP answers 401, and
// decodes a 2xx answer into out (nil: ignored). A problem answer is a
// *Problem.
func (c *Client) call(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	for attempt := 0; ; attempt++ {
		tok, err := c.Token(ctx)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Accept", "application/json")
		if in != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.http().Do(req)
		if err != nil {
			return err
		}
		raw, err := read(resp)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusUnauthorized && attempt == 0 {
			// The token expired early or was revoked: one new one.
			c.forget(tok)
			continue
		}
		if resp.StatusCode >= 300 {
			p := &Problem{Status: resp.StatusCode}
			if json.Unmarshal(raw, p) != nil || p.Title == "" {
				p.Title = http.StatusText(resp.StatusCode)
			}
			p.Status = resp.StatusCode
			return p
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%w: %v", ErrAnswer, err)
		}
		return nil
	}
}

// read reads an answer's body, bounded.
func read(resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxAnswer {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrAnswer, maxAnswer)
	}
	return b, nil
}

// Webhook answers the URL the PSP posts the key's payments to, or "" when
// none is registered (GET /webhook/{chave}).
func (c *Client) Webhook(ctx context.Context, key string) (string, error) {
	var w struct {
		URL string `json:"webhookUrl"`
	}
	err := c.call(ctx, http.MethodGet, "/webhook/"+url.PathEscape(key), nil, &w)
	var p *Problem
	if errors.As(err, &p) && p.Status == http.StatusNotFound {
		return "", nil
	}
	if err == nil && w.URL == "" {
		return "", fmt.Errorf("%w: no webhookUrl", ErrAnswer)
	}
	return w.URL, err
}

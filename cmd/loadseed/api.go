package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// apiContacts inserts n contacts through a running server's API, eight
// requests at a time, for the side-by-side with PocketBase
// (pocketbase.sh): the same names on both, one in 200 "Cliente NNNNN
// Grupo Alfa Ltda", the others "Cliente NNNNN Comércio Ltda", each with a
// distinct valid CPF. post sends contact i and reports an error for an
// answer other than 200.
func apiContacts(n int, post func(i int, name, register string) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				name := fmt.Sprintf("Cliente %05d Comércio Ltda", i)
				if i%200 == 7 {
					name = fmt.Sprintf("Cliente %05d Grupo Alfa Ltda", i)
				}
				if err := post(i, name, cpf(200_000+i)); err != nil {
					errs <- err
					next.Store(int64(n)) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// client is what the seeding requests share: loopback only, so a short
// timeout.
var client = &http.Client{Timeout: 30 * time.Second}

func send(method, u, token string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(method, u, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %d %s", method, u, res.StatusCode, out)
	}
	return out, nil
}

// seedFincom inserts the contacts through /insert_contact.
func seedFincom(base, access, unit string, n int) error {
	return apiContacts(n, func(_ int, name, register string) error {
		_, err := send(http.MethodPost, base+"/insert_contact", "", map[string]string{"access_token": access, "unit_token": unit,
			"type": "natural_person", "register": register, "fullName": name})
		return err
	})
}

// seedPocketBase signs in as the superuser, creates a "contacts"
// collection (name, register unique, e-mail, phone; listing left to
// superusers, so a search carries a token, as fincom's do; creating open
// to anyone, so that the side-by-side also measures PocketBase's
// anonymous create, which checks no token and no rule) and inserts the
// contacts through its records API. It returns the token.
func seedPocketBase(base, email, password string, n int) (string, error) {
	out, err := send(http.MethodPost, base+"/api/collections/_superusers/auth-with-password", "",
		map[string]string{"identity": email, "password": password})
	if err != nil {
		return "", err
	}
	var auth struct{ Token string }
	if err := json.Unmarshal(out, &auth); err != nil || auth.Token == "" {
		return "", fmt.Errorf("pocketbase sign-in: %s", out)
	}
	_, err = send(http.MethodPost, base+"/api/collections", auth.Token, map[string]any{
		"name": "contacts", "type": "base", "createRule": "",
		"fields": []map[string]any{
			{"name": "name", "type": "text", "required": true},
			{"name": "register", "type": "text", "required": true},
			{"name": "email", "type": "email"},
			{"name": "phone", "type": "text"},
		},
		"indexes": []string{"CREATE UNIQUE INDEX idx_contacts_register ON contacts (register)"},
	})
	if err != nil {
		return "", err
	}
	err = apiContacts(n, func(_ int, name, register string) error {
		_, err := send(http.MethodPost, base+"/api/collections/contacts/records", auth.Token, map[string]string{"name": name, "register": register})
		return err
	})
	return auth.Token, err
}

// pocketBaseSearch is the list URL that finds what fincom's search does.
func pocketBaseSearch(base, text string) string {
	return base + "/api/collections/contacts/records?perPage=50&skipTotal=1&filter=" + url.QueryEscape("(name~'"+text+"')")
}

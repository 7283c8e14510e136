package invoicing

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/sefaz"
	"fincom/server/inbox"
	"fincom/store"
)

// maxFetchRounds bounds the lots one fetch asks for: the national
// environment answers up to 50 documents a lot, so one fetch reads up to
// a thousand and the next goes on from there.
const maxFetchRounds = 20

// InboxFetch is what one fetch of a unit's documents did: the last answer
// (138 documents, 137 none: ask again in an hour, 656 asked too often),
// the NSU read up to, the notes imported, the summaries and events seen.
type InboxFetch struct {
	Code      int      `json:"cStat"`
	Reason    string   `json:"xMotivo"`
	NSU       int64    `json:"nsu"`
	Imported  []string `json:"imported"`
	Summaries int      `json:"summaries"`
	Events    int      `json:"events"`
	// Summarized are the keys of the notes the national environment
	// summarized (resNFe): it distributes a note whole once its recipient
	// has sent at least its ciência.
	Summarized []string `json:"-"`
}

// FetchInbox asks the national environment (NFeDistribuicaoDFe) for the
// documents issued to the unit's CNPJ after the last NSU it read, in env:
// authorized notes enter the inbox (held to the inbox's rules), summaries
// and events are counted, and the NSU moves on with each lot.
func FetchInbox(ctx context.Context, db *store.DB, c *sefaz.Client, u store.Unit, cert certs.Certificate, env string, signers *inbox.Signers) (InboxFetch, error) {
	out := InboxFetch{Imported: []string{}}
	if len(u.CityIBGE) < 2 {
		return out, fmt.Errorf("unit %s has no city", u.Name)
	}
	nsu, err := db.DistributionNSU(ctx, u.ID)
	if err != nil {
		return out, err
	}
	for range maxFetchRounds {
		d, err := c.Distribute(ctx, cert, brdoc.Digits(u.CNPJ), u.CityIBGE[:2], strconv.FormatInt(nsu, 10), env)
		if err != nil {
			return out, err
		}
		out.Code, out.Reason = d.Code, d.Reason
		if d.Code != 138 {
			break // 137 nothing new, 656 asked too often: wait before asking again
		}
		for _, doc := range d.Documents {
			switch {
			case strings.HasPrefix(doc.Schema, "procNFe"):
				n, err := inbox.ReadNFe(doc.XML, u.CNPJ, signers)
				if err != nil {
					return out, fmt.Errorf("NSU %s: %w", doc.NSU, err)
				}
				if _, err := db.ImportNFe(ctx, u.ID, n); err != nil && !errors.Is(err, store.ErrDuplicate) {
					return out, fmt.Errorf("NSU %s: %w", doc.NSU, err)
				}
				out.Imported = append(out.Imported, n.AccessKey)
			case strings.HasPrefix(doc.Schema, "resNFe"):
				out.Summaries++
				var res struct {
					Key string `xml:"chNFe"`
				}
				if xml.Unmarshal(doc.XML, &res) == nil && brdoc.ValidAccessKey(res.Key) {
					out.Summarized = append(out.Summarized, res.Key)
				}
			default:
				out.Events++
			}
		}
		got, err := strconv.ParseInt(d.LastNSU, 10, 64)
		if err != nil || got < nsu {
			return out, fmt.Errorf("the national environment answered NSU %q after %d", d.LastNSU, nsu)
		}
		nsu = got
		if err := db.SetDistributionNSU(ctx, u.ID, nsu); err != nil {
			return out, err
		}
		if d.LastNSU >= d.MaxNSU {
			break
		}
	}
	out.NSU = nsu
	return out, nil
}

// FetchInboxes fetches the documents of each unit of a domain that has a
// certificate, in the unit's environment, through the server's SEFAZ
// client (none in test mode: nothing is fetched). After "nothing new"
// (137) or "asked too often" (656) a unit waits an hour, as the national
// environment requires; after an error, the same.
func (s *Service) FetchInboxes(ctx context.Context, db *store.DB) error {
	if s.SEFAZ == nil || s.Keyring == nil {
		return nil
	}
	units, err := db.Units(ctx)
	if err != nil {
		return err
	}
	var errs []error
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
		signers, err := s.InboxSigners(ctx, db)
		if err != nil {
			return err
		}
		f, err := FetchInbox(ctx, db, s.SEFAZ, u, cert, env, signers)
		if err != nil || f.Code != 138 {
			s.manifestWait.Store(waitKey, backoff{wait: time.Hour, next: now.Add(time.Hour)})
		}
		if err != nil {
			errs = append(errs, err)
		}
		// A summarized note comes whole once the unit sent its ciência:
		// sent here, the note arrives in a later fetch.
		if m, ok := s.Authority.(fiscal.Manifester); ok {
			for _, key := range f.Summarized {
				if _, _, err := m.Manifest(ctx, fiscal.Manifestation{Key: key, CNPJ: u.CNPJ, Event: manifestationEvents["ciencia"],
					At: now, Production: env == sefaz.Producao, Cert: cert, Domain: db.Name, Book: book{db}}); err != nil {
					errs = append(errs, err)
				}
			}
		}
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

// Package replica replicates the domain files to S3-compatible storage
// with Litestream (embedded), in Litestream's own layout, so that the
// upstream `litestream restore` reads what fincom writes; with a key,
// every object is sealed first.
package replica

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// metadataTimestamp is the object metadata Litestream's own S3 client
// keeps an LTX file's time in (timestamp restores read it).
const metadataTimestamp = "litestream-timestamp"

// Target is where replicas go: an s3:// URL's bucket and prefix, and the
// endpoint, region and path style its query gives.
type Target struct {
	Bucket, Prefix   string
	Endpoint, Region string
	ForcePathStyle   bool
}

// ParseURL reads s3://BUCKET/PREFIX?endpoint=…&region=…&force-path-style=true.
func ParseURL(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return Target{}, fmt.Errorf("replica URL %q: want s3://BUCKET/PREFIX?endpoint=…&region=…", raw)
	}
	q := u.Query()
	t := Target{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), Endpoint: q.Get("endpoint"), Region: q.Get("region")}
	if v := q.Get("force-path-style"); v != "" {
		if t.ForcePathStyle, err = strconv.ParseBool(v); err != nil {
			return Target{}, fmt.Errorf("replica URL %q: force-path-style: %w", raw, err)
		}
	}
	if t.Endpoint != "" {
		e, err := url.Parse(t.Endpoint)
		if err != nil || (e.Scheme != "https" && e.Scheme != "http") || e.Host == "" {
			return Target{}, fmt.Errorf("replica URL %q: endpoint must be an http(s) address", raw)
		}
	}
	if t.Region == "" {
		t.Region = "us-east-1"
	}
	return t, nil
}

// Client is a Litestream replica client for one database at
// Target.Prefix/<name>: Litestream's S3 layout (<path>/<level:04x>/<min>-<max>.ltx,
// the time in the litestream-timestamp metadata), over an HTTP client
// that trusts the system's roots, AWS_CA_BUNDLE's and --ca-file's
// (Litestream's own client cannot take a custom CA with AWS_CA_BUNDLE).
// With a Sealer every object is sealed before it leaves.
type Client struct {
	s3     *s3.Client
	bucket string
	path   string
	file   string
	seal   *Sealer
	logger *slog.Logger

	// marks is the data directory's record of the marks it wrote (nil: a
	// client that only reads, a restore's). Under mu: the mark written
	// last, whether and when the bucket's mark was last checked against
	// the record, and why writes are refused (a rolled-back prefix).
	marks     *Marks
	mu        sync.Mutex
	mark      Mark
	checkedAt time.Time
	refused   error
}

// Connection is an S3 connection shared by the clients of one target.
type Connection struct {
	s3     *s3.Client
	target Target
	seal   *Sealer
	marks  *Marks
}

// Connect makes the S3 connection of a target: credentials from the
// standard AWS variables and files, roots from the system, AWS_CA_BUNDLE
// and extra (--ca-file; nil: none).
func Connect(ctx context.Context, t Target, extra *x509.CertPool, seal *Sealer) (*Connection, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if extra != nil {
		roots = extra.Clone()
	}
	if bundle := os.Getenv("AWS_CA_BUNDLE"); bundle != "" {
		pem, err := os.ReadFile(bundle)
		if err != nil {
			return nil, fmt.Errorf("AWS_CA_BUNDLE: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("AWS_CA_BUNDLE %s holds no certificate", bundle)
		}
	}
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}
	})
	// A buildable client: the SDK adds AWS_CA_BUNDLE to its roots (again)
	// rather than refusing a custom client beside it.
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(t.Region), config.WithHTTPClient(httpClient))
	if err != nil {
		return nil, fmt.Errorf("replica: AWS configuration: %w", err)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = t.ForcePathStyle
		if t.Endpoint != "" {
			o.BaseEndpoint = aws.String(t.Endpoint)
		}
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	return &Connection{s3: client, target: t, seal: seal}, nil
}

// Client is the replica client of the database name (PREFIX/name).
func (c *Connection) Client(name string) *Client {
	return &Client{s3: c.s3, bucket: c.target.Bucket, path: path.Join(c.target.Prefix, name), file: name, seal: c.seal, logger: slog.Default(), marks: c.marks}
}

// KeepMarks makes the connection's clients write each file's mark after
// its objects, and record it in marks; and refuse to write onto a replica
// whose mark is behind that record (mark.go).
func (c *Connection) KeepMarks(marks *Marks) { c.marks = marks }

var _ litestream.ReplicaClient = (*Client)(nil)

// Type names the client as Litestream's S3 client does.
func (c *Client) Type() string { return "s3" }

// Init has nothing to do: the connection is made.
func (c *Client) Init(context.Context) error { return nil }

// SetLogger sets the client's logger.
func (c *Client) SetLogger(l *slog.Logger) { c.logger = l }

func (c *Client) key(level int, minTXID, maxTXID ltx.TXID) string {
	return c.path + "/" + fmt.Sprintf("%04x/%s", level, ltx.FormatFilename(minTXID, maxTXID))
}

// LTXFiles lists a level's LTX files from seek on, in order.
func (c *Client) LTXFiles(ctx context.Context, level int, seek ltx.TXID, useMetadata bool) (ltx.FileIterator, error) {
	prefix := c.path + "/" + fmt.Sprintf("%04x/", level)
	var infos []*ltx.FileInfo
	p := s3.NewListObjectsV2Paginator(c.s3, &s3.ListObjectsV2Input{Bucket: aws.String(c.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("replica: list %s: %w", prefix, err)
		}
		for _, obj := range page.Contents {
			key := aws.ToString(obj.Key)
			minTXID, maxTXID, err := ltx.ParseFilename(path.Base(key))
			if err != nil || minTXID < seek {
				continue
			}
			info := &ltx.FileInfo{Level: level, MinTXID: minTXID, MaxTXID: maxTXID, Size: c.seal.plainSize(aws.ToInt64(obj.Size)),
				CreatedAt: aws.ToTime(obj.LastModified).UTC()}
			if useMetadata {
				head, err := c.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)})
				if err != nil {
					return nil, fmt.Errorf("replica: head %s: %w", key, err)
				}
				if ts, err := time.Parse(time.RFC3339Nano, head.Metadata[metadataTimestamp]); err == nil {
					info.CreatedAt = ts.UTC()
				}
			}
			infos = append(infos, info)
		}
	}
	return ltx.NewFileInfoSliceIterator(infos), nil
}

// OpenLTXFile reads an LTX file from offset (size bytes; 0: to its end).
func (c *Client) OpenLTXFile(ctx context.Context, level int, minTXID, maxTXID ltx.TXID, offset, size int64) (io.ReadCloser, error) {
	key := c.key(level, minTXID, maxTXID)
	in := &s3.GetObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)}
	if c.seal == nil {
		if size > 0 {
			in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", offset, offset+size-1))
		} else if offset > 0 {
			in.Range = aws.String(fmt.Sprintf("bytes=%d-", offset))
		}
	}
	out, err := c.s3.GetObject(ctx, in)
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return nil, os.ErrNotExist
	}
	if err != nil {
		return nil, fmt.Errorf("replica: get %s: %w", key, err)
	}
	if c.seal == nil {
		return out.Body, nil
	}
	// A sealed object is opened whole (its seal covers all of it), then
	// the range asked for is cut from it.
	defer out.Body.Close()
	sealed, err := io.ReadAll(io.LimitReader(out.Body, maxObject+1))
	if err != nil {
		return nil, fmt.Errorf("replica: get %s: %w", key, err)
	}
	plain, err := c.seal.open(sealed, key)
	if err != nil {
		return nil, err
	}
	if offset > int64(len(plain)) {
		offset = int64(len(plain))
	}
	plain = plain[offset:]
	if size > 0 && size < int64(len(plain)) {
		plain = plain[:size]
	}
	return io.NopCloser(bytes.NewReader(plain)), nil
}

// maxObject bounds an LTX file fincom reads whole (a sealed one).
const maxObject = 1 << 30

// WriteLTXFile writes an LTX file, its time (from its header) in the
// metadata Litestream's own client keeps it in.
func (c *Client) WriteLTXFile(ctx context.Context, level int, minTXID, maxTXID ltx.TXID, r io.Reader) (*ltx.FileInfo, error) {
	if err := c.gate(ctx); err != nil {
		return nil, err
	}
	key := c.key(level, minTXID, maxTXID)
	plain, err := io.ReadAll(io.LimitReader(r, maxObject+1))
	if err != nil {
		return nil, err
	}
	if len(plain) > maxObject {
		return nil, fmt.Errorf("replica: %s is larger than %d bytes", key, maxObject)
	}
	var hdr ltx.Header
	if len(plain) < ltx.HeaderSize || hdr.UnmarshalBinary(plain[:ltx.HeaderSize]) != nil {
		return nil, fmt.Errorf("replica: %s is not an LTX file", key)
	}
	ts := time.UnixMilli(hdr.Timestamp).UTC()
	body := plain
	if c.seal != nil {
		if body, err = c.seal.seal(plain, key); err != nil {
			return nil, err
		}
	}
	if _, err := c.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key), Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), Metadata: map[string]string{metadataTimestamp: ts.Format(time.RFC3339Nano)}}); err != nil {
		return nil, fmt.Errorf("replica: put %s: %w", key, err)
	}
	if err := c.raiseMark(ctx, Mark{TXID: maxTXID, At: ts}); err != nil {
		return nil, err
	}
	return &ltx.FileInfo{Level: level, MinTXID: minTXID, MaxTXID: maxTXID, Size: int64(len(plain)), CreatedAt: ts}, nil
}

// recheckMark is how often a replicating client checks its bucket's mark
// against the record again (a prefix rolled back while serving).
const recheckMark = time.Minute

// gate refuses writes onto a replica whose mark is behind what this data
// directory wrote to it: checked before the first write and then every
// recheckMark (a client without marks writes freely).
func (c *Client) gate(ctx context.Context) error {
	if c.marks == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refused != nil {
		return c.refused
	}
	if !c.checkedAt.IsZero() && time.Since(c.checkedAt) < recheckMark {
		return nil
	}
	bucket, marked, err := c.ReadMark(ctx)
	if err != nil {
		return err
	}
	record, recorded, err := c.marks.Get(c.file)
	if err != nil {
		return err
	}
	if err := behindRecord(c.file, bucket, marked, record, recorded); err != nil {
		c.refused = err
		c.logger.Error("replica rolled back: not replicating the file", "file", c.file, "err", err)
		return err
	}
	if marked && bucket.TXID > c.mark.TXID {
		c.mark = bucket
	}
	c.checkedAt = time.Now()
	return nil
}

// raiseMark writes the mark of an object just written, when it covers a
// newer transaction than the mark, and records it.
func (c *Client) raiseMark(ctx context.Context, m Mark) error {
	if c.marks == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.TXID <= c.mark.TXID {
		return nil
	}
	// The objects are in: their mark follows them even when the sync
	// that wrote them is being stopped (the last sync of a shutdown).
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := c.writeMark(mctx, m); err != nil {
		return err
	}
	c.mark = m
	return c.marks.Set(c.file, m, false)
}

// Refused answers why the client refuses to write (nil: it does not).
func (c *Client) Refused() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// DeleteLTXFiles deletes LTX files, a thousand a request.
func (c *Client) DeleteLTXFiles(ctx context.Context, a []*ltx.FileInfo) error {
	var keys []string
	for _, f := range a {
		keys = append(keys, c.key(f.Level, f.MinTXID, f.MaxTXID))
	}
	return c.delete(ctx, keys)
}

func (c *Client) delete(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		var ids []types.ObjectIdentifier
		for _, k := range keys[:n] {
			ids = append(ids, types.ObjectIdentifier{Key: aws.String(k)})
		}
		out, err := c.s3.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(c.bucket), Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return fmt.Errorf("replica: delete: %w", err)
		}
		if len(out.Errors) > 0 {
			return fmt.Errorf("replica: delete %s: %s", aws.ToString(out.Errors[0].Key), aws.ToString(out.Errors[0].Message))
		}
		keys = keys[n:]
	}
	return nil
}

// DeleteAll deletes every file of the database's replica.
func (c *Client) DeleteAll(ctx context.Context) error {
	var keys []string
	p := s3.NewListObjectsV2Paginator(c.s3, &s3.ListObjectsV2Input{Bucket: aws.String(c.bucket), Prefix: aws.String(c.path + "/")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("replica: list %s: %w", c.path, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	if err := c.delete(ctx, keys); err != nil {
		return err
	}
	// The mark went with the objects: what is written next starts anew.
	if c.marks != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.mark = Mark{}
		return c.marks.Set(c.file, Mark{}, true)
	}
	return nil
}

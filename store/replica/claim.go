package replica

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// InstallationFile holds a data directory's installation id: the id the
// prefix it replicates to is claimed under.
const InstallationFile = ".fincom-installation"

// markerName is the object under the prefix that names the installation
// replicating there.
const markerName = "fincom-installation"

// ErrForeignPrefix is a prefix that holds another installation's
// replicas: two data directories replicating to one prefix would write
// over each other's books.
var ErrForeignPrefix = errors.New("the replica prefix holds another installation's replicas")

// Claim makes the prefix this data directory's: a prefix without a marker
// is claimed under the directory's id (made at first use); a prefix
// claimed under another id is refused (ErrForeignPrefix). adopt (a
// restore from the prefix) makes a directory without an id take the
// prefix's: the machine that replaces the lost one.
func (c *Connection) Claim(ctx context.Context, dir string, adopt bool) error {
	localFile := filepath.Join(dir, InstallationFile)
	b, err := os.ReadFile(localFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	local := strings.TrimSpace(string(b))
	key := path.Join(c.target.Prefix, markerName)
	remote, err := c.get(ctx, key)
	if err != nil {
		return err
	}
	switch {
	case remote == "" && local == "":
		id := make([]byte, 16)
		if _, err := rand.Read(id); err != nil {
			return err
		}
		local = hex.EncodeToString(id)
		if err := os.WriteFile(localFile, []byte(local+"\n"), 0o600); err != nil {
			return err
		}
		return c.put(ctx, key, local)
	case remote == "":
		return c.put(ctx, key, local)
	case local == "" && adopt:
		return os.WriteFile(localFile, []byte(remote+"\n"), 0o600)
	case local == "":
		return fmt.Errorf("%w (%s): restore from it (serve --restore-missing, fincom restore --from-replica) or replicate to another prefix", ErrForeignPrefix, remote)
	case local != remote:
		return fmt.Errorf("%w (%s, this directory is %s): replicate to another prefix", ErrForeignPrefix, remote, local)
	}
	return nil
}

func (c *Connection) get(ctx context.Context, key string) (string, error) {
	out, err := c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(c.target.Bucket), Key: aws.String(key)})
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("replica: get %s: %w", key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, 256))
	return strings.TrimSpace(string(b)), err
}

func (c *Connection) put(ctx context.Context, key, value string) error {
	_, err := c.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(c.target.Bucket), Key: aws.String(key), Body: bytes.NewReader([]byte(value + "\n"))})
	if err != nil {
		return fmt.Errorf("replica: put %s: %w", key, err)
	}
	return nil
}

// Files lists the database files with replicas under the prefix.
func (c *Connection) Files(ctx context.Context) ([]string, error) {
	prefix := ""
	if c.target.Prefix != "" {
		prefix = c.target.Prefix + "/"
	}
	var names []string
	p := s3.NewListObjectsV2Paginator(c.s3, &s3.ListObjectsV2Input{Bucket: aws.String(c.target.Bucket), Prefix: aws.String(prefix), Delimiter: aws.String("/")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("replica: list %s: %w", prefix, err)
		}
		for _, cp := range page.CommonPrefixes {
			if n := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), prefix), "/"); strings.HasSuffix(n, ".db") {
				names = append(names, n)
			}
		}
	}
	return names, nil
}

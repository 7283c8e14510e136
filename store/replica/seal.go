package replica

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// Sealer seals every object written to the bucket with the replica key
// (--replicate-key-file, 32 bytes): AES-256-GCM, the object's key as the
// additional data, so that the bucket's owner reads nothing of the books
// and can swap no object for another unnoticed.
type Sealer struct{ aead cipher.AEAD }

// sealMagic opens every sealed object: a bucket read with the wrong
// expectation (sealed or not) says so.
var sealMagic = []byte("FCR1")

// sealOverhead is what sealing adds: the magic, the nonce, the tag.
const sealOverhead = 4 + 12 + 16

// ErrSealed is an object that does not open with the key given (or one
// sealed read without a key).
var ErrSealed = errors.New("the replica does not open with this key")

// NewSealer makes the sealer of a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("replica key: want 32 bytes, not %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

func (s *Sealer) seal(plain []byte, key string) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out := append(append([]byte{}, sealMagic...), nonce...)
	return s.aead.Seal(out, nonce, plain, []byte(key)), nil
}

func (s *Sealer) open(sealed []byte, key string) ([]byte, error) {
	if len(sealed) < sealOverhead || !bytes.Equal(sealed[:4], sealMagic) {
		return nil, fmt.Errorf("%w: %s is not sealed", ErrSealed, key)
	}
	plain, err := s.aead.Open(nil, sealed[4:16], sealed[16:], []byte(key))
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrSealed, key)
	}
	return plain, nil
}

// plainSize is an object's size before sealing.
func (s *Sealer) plainSize(n int64) int64 {
	if s == nil {
		return n
	}
	return max(n-sealOverhead, 0)
}

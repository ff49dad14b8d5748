package features

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"strings"
)

// SignatureSuffix is appended to a bundle's path to name its detached
// signature file.
//
// A bundle is signed with a detached signature: the file BUNDLE.sig beside
// BUNDLE holds one line,
//
//	augur-signature ed25519 <key id> <base64 signature>
//
// where the signature is Ed25519 (RFC 8032) over every byte of the bundle
// file, exactly as stored, and the key id is KeyID of the signing key (16
// hex digits, to name the key in messages; verification never trusts it).
// The bundle itself is unchanged, so every reader, old or new, that is
// given no trusted keys reads a signed bundle as it reads any other, and a
// library that go:embeds a bundle embeds its .sig beside it.
//
// Keys are PEM files as OpenSSL writes them: the private key a "PRIVATE
// KEY" block (PKCS #8), the public key a "PUBLIC KEY" block
// (SubjectPublicKeyInfo), so `openssl pkey -in KEY -pubout` derives the
// public key and `openssl pkeyutl -verify -pubin -inkey KEY.pub -rawin
// -in BUNDLE -sigfile SIG.bin` checks a signature whose base64 field was
// decoded into SIG.bin.
const SignatureSuffix = ".sig"

// signatureTag opens every signature file; the algorithm follows.
const signatureTag = "augur-signature ed25519 "

// The DER prefixes of an Ed25519 key (RFC 8410): the fixed bytes before
// the 32-byte key in a SubjectPublicKeyInfo, and before the 32-byte seed
// in a PKCS #8 PrivateKeyInfo. Parsing them here keeps crypto/x509 out of
// the runtime's dependencies.
var (
	spkiPrefix  = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}
	pkcs8Prefix = []byte{0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20}
)

// KeyID returns a short name of a public key: the first 8 bytes of its
// SHA-256, in hex.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// GenerateKey returns a new key pair as PEM files: the private key and the
// public key. rand is the source of randomness (crypto/rand.Reader).
func GenerateKey(rand io.Reader) (private, public []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return nil, nil, fmt.Errorf("features: generate key: %w", err)
	}
	private = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: append(append([]byte(nil), pkcs8Prefix...), priv.Seed()...)})
	return private, MarshalPublicKey(pub), nil
}

// MarshalPublicKey returns pub as a PEM "PUBLIC KEY" file.
func MarshalPublicKey(pub ed25519.PublicKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: append(append([]byte(nil), spkiPrefix...), pub...)})
}

// ParsePublicKey reads an Ed25519 public key from a PEM "PUBLIC KEY" file
// (what GenerateKey and `openssl pkey -pubout` write).
func ParsePublicKey(data []byte) (ed25519.PublicKey, error) {
	der, err := pemBlock(data, "PUBLIC KEY")
	if err != nil {
		return nil, err
	}
	key, ok := bytes.CutPrefix(der, spkiPrefix)
	if !ok || len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: public key is not an Ed25519 key", ErrSyntax)
	}
	return ed25519.PublicKey(key), nil
}

// ParsePrivateKey reads an Ed25519 private key from a PEM "PRIVATE KEY"
// file (what GenerateKey and `openssl genpkey -algorithm ed25519` write).
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	der, err := pemBlock(data, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	seed, ok := bytes.CutPrefix(der, pkcs8Prefix)
	if !ok || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: private key is not an Ed25519 key", ErrSyntax)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// pemBlock returns the bytes of the first PEM block of data, which must
// have type typ.
func pemBlock(data []byte, typ string) ([]byte, error) {
	b, _ := pem.Decode(data)
	switch {
	case b == nil:
		return nil, fmt.Errorf("%w: no PEM block in the key file", ErrSyntax)
	case b.Type != typ:
		return nil, fmt.Errorf("%w: key file holds a %q block, want %q", ErrSyntax, b.Type, typ)
	}
	return b.Bytes, nil
}

// SignBundle returns the detached signature file (the contents of
// BUNDLE.sig, in the format SignatureSuffix describes) of the bundle file
// data. It refuses bytes that are not a
// bundle ReadBundle accepts, so that nothing broken gets signed.
func SignBundle(data []byte, key ed25519.PrivateKey) ([]byte, error) {
	if _, err := ReadBundle(data); err != nil {
		return nil, err
	}
	sig := ed25519.Sign(key, data)
	pub := key.Public().(ed25519.PublicKey)
	return []byte(signatureTag + KeyID(pub) + " " + base64.StdEncoding.EncodeToString(sig) + "\n"), nil
}

// Signature is a parsed detached signature file.
type Signature struct {
	// KeyID is the signer's key as the file names it (KeyID); it is not
	// authenticated.
	KeyID string
	// Sig is the Ed25519 signature of the bundle's bytes.
	Sig []byte
}

// ParseSignature reads a detached signature file.
func ParseSignature(data []byte) (Signature, error) {
	line, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), signatureTag)
	if !ok {
		return Signature{}, fmt.Errorf("%w: signature file does not start with %q", ErrSignature, strings.TrimSpace(signatureTag))
	}
	id, enc, ok := strings.Cut(line, " ")
	if !ok || len(id) != 16 || strings.ContainsAny(line, "\n\r") {
		return Signature{}, fmt.Errorf("%w: signature file is not one line %q<key id> <base64>", ErrSignature, signatureTag)
	}
	sig, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Signature{}, fmt.Errorf("%w: signature is not %d base64-encoded bytes", ErrSignature, ed25519.SignatureSize)
	}
	return Signature{KeyID: id, Sig: sig}, nil
}

// VerifyBundle checks the detached signature file sig of the bundle file
// data against trusted keys and returns the key that signed it. It fails,
// with an error that matches ErrSignature, when sig is empty (an unsigned
// bundle), malformed, made by a key not among trusted, or made over other
// bytes (a bundle changed after signing). The bundle itself is not parsed.
func VerifyBundle(data, sig []byte, trusted []ed25519.PublicKey) (ed25519.PublicKey, error) {
	if len(sig) == 0 {
		return nil, fmt.Errorf("%w: bundle is not signed", ErrSignature)
	}
	s, err := ParseSignature(sig)
	if err != nil {
		return nil, err
	}
	for _, k := range trusted {
		if len(k) == ed25519.PublicKeySize && ed25519.Verify(k, data, s.Sig) {
			return k, nil
		}
	}
	for _, k := range trusted {
		if len(k) == ed25519.PublicKeySize && KeyID(k) == s.KeyID {
			return nil, fmt.Errorf("%w: bundle changed after key %s signed it", ErrSignature, s.KeyID)
		}
	}
	return nil, fmt.Errorf("%w: bundle signed by key %s, which is not among the %d trusted", ErrSignature, s.KeyID, len(trusted))
}

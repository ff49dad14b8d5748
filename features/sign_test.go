package features_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func newKey(t testing.TB) (ed25519.PrivateKey, ed25519.PublicKey) {
	t.Helper()
	privPEM, pubPEM, err := features.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := features.ParsePrivateKey(privPEM)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := features.ParsePublicKey(pubPEM)
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(priv.Public()) {
		t.Fatal("public key file does not match the private key")
	}
	return priv, pub
}

// TestKeysAreStandard checks that the key files are the PKCS #8 and PKIX
// encodings crypto/x509 (and OpenSSL) read and write.
func TestKeysAreStandard(t *testing.T) {
	privPEM, pubPEM, err := features.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(privPEM)
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		t.Fatalf("x509 cannot read the private key: %v", err)
	}
	priv := k.(ed25519.PrivateKey)
	b, _ = pem.Decode(pubPEM)
	p, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		t.Fatalf("x509 cannot read the public key: %v", err)
	}
	if !p.(ed25519.PublicKey).Equal(priv.Public()) {
		t.Fatal("keys differ")
	}
	// And the other way: keys written by x509 parse here.
	der, _ := x509.MarshalPKIXPublicKey(priv.Public())
	if _, err := features.ParsePublicKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})); err != nil {
		t.Fatal(err)
	}
	der, _ = x509.MarshalPKCS8PrivateKey(priv)
	if _, err := features.ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyBundle(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	priv, pub := newKey(t)
	_, other := newKey(t)
	sig, err := features.SignBundle(data, priv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(sig), "augur-signature ed25519 "+features.KeyID(pub)+" ") {
		t.Fatalf("signature file %q", sig)
	}
	tampered := bytes.Clone(data)
	tampered[len(tampered)/2] ^= 1
	tests := []struct {
		name    string
		data    []byte
		sig     []byte
		keys    []ed25519.PublicKey
		wantErr string // "" for success
	}{
		{"signed, right key", data, sig, []ed25519.PublicKey{pub}, ""},
		{"signed, right key second", data, sig, []ed25519.PublicKey{other, pub}, ""},
		{"unsigned", data, nil, []ed25519.PublicKey{pub}, "not signed"},
		{"foreign key", data, sig, []ed25519.PublicKey{other}, "not among the 1 trusted"},
		{"tampered bundle", tampered, sig, []ed25519.PublicKey{pub}, "changed after key"},
		{"appended byte", append(bytes.Clone(data), ' '), sig, []ed25519.PublicKey{pub}, "changed after key"},
		{"garbage signature", data, []byte("hello\n"), []ed25519.PublicKey{pub}, "does not start"},
		{"short signature", data, []byte("augur-signature ed25519 0123456789abcdef AAAA\n"), []ed25519.PublicKey{pub}, "not 64 base64"},
		{"no keys", data, sig, nil, "not among the 0 trusted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := features.VerifyBundle(tt.data, tt.sig, tt.keys)
			if tt.wantErr == "" {
				if err != nil || !k.Equal(pub) {
					t.Fatalf("got %v, %v; want the key", k, err)
				}
				return
			}
			if !errors.Is(err, features.ErrSignature) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want ErrSignature with %q", err, tt.wantErr)
			}
		})
	}
}

func TestSignRefusesNonBundle(t *testing.T) {
	priv, _ := newKey(t)
	if _, err := features.SignBundle([]byte(`{"format": 2}`), priv); err == nil {
		t.Fatal("signed a broken bundle")
	}
}

func FuzzParseSignature(f *testing.F) {
	f.Add([]byte("augur-signature ed25519 0123456789abcdef " + strings.Repeat("A", 86) + "==\n"))
	f.Add([]byte("augur-signature ed25519 \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := features.ParseSignature(data)
		if err == nil && len(s.Sig) != ed25519.SignatureSize {
			t.Fatalf("accepted a %d-byte signature", len(s.Sig))
		}
	})
}

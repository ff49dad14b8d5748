package runtime_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

func TestTrustedKeys(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	sig, err := features.SignBundle(data, priv)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Clone(data)
	tampered[len(tampered)/3] ^= 4
	tests := []struct {
		name      string
		data, sig []byte
		keys      []ed25519.PublicKey
		wantErr   bool
		signer    string
	}{
		{"no keys, unsigned", data, nil, nil, false, ""},
		{"no keys, signed", data, sig, nil, false, ""},
		{"right key", data, sig, []ed25519.PublicKey{pub}, false, features.KeyID(pub)},
		{"unsigned", data, nil, []ed25519.PublicKey{pub}, true, ""},
		{"foreign signer", data, sig, []ed25519.PublicKey{other}, true, ""},
		{"tampered", tampered, sig, []ed25519.PublicKey{pub}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := runtime.New(tt.data, runtime.Options{TrustedKeys: tt.keys, Signature: tt.sig})
			if tt.wantErr {
				if !errors.Is(err, runtime.ErrUntrusted) || !errors.Is(err, features.ErrSignature) {
					t.Fatalf("got %v, want ErrUntrusted", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ch.SignedBy(); got != tt.signer {
				t.Errorf("SignedBy() = %q, want %q", got, tt.signer)
			}
		})
	}
}

func TestFromBundleRefusesKeys(t *testing.T) {
	b, err := features.ReadBundleFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	if _, err := runtime.FromBundle(b, runtime.Options{TrustedKeys: []ed25519.PublicKey{pub}}); !errors.Is(err, runtime.ErrUntrusted) {
		t.Fatalf("got %v, want ErrUntrusted", err)
	}
}

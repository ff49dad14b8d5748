package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/runtime"
)

// TestSignedBundle walks keygen, sign, choose and inspect through a signed
// bundle loaded with and without the right key, a foreign key, and after
// tampering.
func TestSignedBundle(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	cmd := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, args, &out, &errOut)
		return out.String(), err
	}
	key, other := filepath.Join(dir, "key"), filepath.Join(dir, "other")
	for _, k := range []string{key, other} {
		if _, err := cmd("keygen", "--out", k); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("private key: %v, %v; want mode 0600", fi, err)
	}
	if _, err := cmd("keygen", "--out", key); !errors.Is(err, os.ErrExist) {
		t.Errorf("keygen over an existing key: %v, want ErrExist", err)
	}
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.augur")
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	shape := "width=1000,height=700,filter_w=5,filter_h=5"
	if _, err := cmd("choose", "--model", model, "--shape", shape, "--trusted-keys", key+".pub"); !errors.Is(err, runtime.ErrUntrusted) {
		t.Errorf("unsigned bundle with keys: %v, want ErrUntrusted", err)
	}
	if _, err := cmd("sign", "--key", key, "--model", model); err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "t.augur")
	bad := bytes.Clone(data)
	bad[len(bad)/2] ^= 1
	os.WriteFile(tampered, bad, 0o644)
	sig, _ := os.ReadFile(model + ".sig")
	os.WriteFile(tampered+".sig", sig, 0o644)

	tests := []struct {
		name    string
		args    []string
		want    string // in stdout
		wantErr string // "" for none
	}{
		{"choose without keys", []string{"choose", "--model", model, "--shape", shape}, "", ""},
		{"choose right key", []string{"choose", "--model", model, "--shape", shape, "--trusted-keys", other + ".pub," + key + ".pub"}, "signature: verified", ""},
		{"choose foreign key", []string{"choose", "--model", model, "--shape", shape, "--trusted-keys", other + ".pub"}, "", "not among the 1 trusted"},
		{"choose tampered", []string{"choose", "--model", tampered, "--shape", shape, "--trusted-keys", key + ".pub"}, "", "changed after key"},
		{"choose missing signature file", []string{"choose", "--model", model, "--shape", shape, "--trusted-keys", key + ".pub", "--signature", model + ".nope"}, "", "no such file"},
		{"choose a signature without keys", []string{"choose", "--model", model, "--shape", shape, "--signature", model + ".sig"}, "", "give both, or neither"},
		{"choose a non-signature", []string{"choose", "--model", model, "--shape", shape, "--trusted-keys", key + ".pub", "--signature", key + ".pub"}, "", "--signature " + key + ".pub: features: bad signature"},
		{"inspect a non-signature", []string{"inspect", "--model", model, "--signature", key + ".pub"}, "", "bad signature"},
		{"inspect unchecked", []string{"inspect", "--model", model}, "signature: present, key", ""},
		{"inspect verified", []string{"inspect", "--model", model, "--trusted-keys", key + ".pub"}, "signature: verified", ""},
		{"inspect tampered", []string{"inspect", "--model", tampered, "--trusted-keys", key + ".pub"}, "signature: REFUSED", "changed after key"},
		{"inspect unsigned", []string{"inspect", "--model", bundle}, "signature: none", ""},
		{"sign a non-bundle", []string{"sign", "--key", key, "--model", key + ".pub"}, "", "features: syntax error"},
		{"sign with a public key", []string{"sign", "--key", key + ".pub", "--model", model, "--out", model + ".new"}, "", `want "PRIVATE KEY"`},
		{"sign over a signature", []string{"sign", "--key", other, "--model", model}, "", "m.augur.sig exists; pass --force to overwrite it"},
		{"sign over a signature, forced", []string{"sign", "--key", key, "--model", model, "--force"}, "wrote " + model + ".sig", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := cmd(tt.args...)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			case !strings.Contains(out, tt.want):
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/augur-tuning/augur/features"
)

func runSign(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var key, model, out string
	fs := flags("sign", "--key KEY --model BUNDLE [--out FILE] [--force]", stderr)
	fs.StringVar(&key, "key", "", "private key file written by 'augur keygen'")
	fs.StringVar(&model, "model", "", "model bundle to sign; the bundle itself is not changed")
	fs.StringVar(&out, "out", "", "signature file to write (default BUNDLE.sig)")
	force := fs.Bool("force", false, "overwrite the signature file if it exists (a signature made earlier, perhaps with another key, is lost)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "key", "model"); err != nil {
		return err
	}
	if out == "" {
		out = model + features.SignatureSuffix
	}
	if err := checkWritable(out, *force); err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	kdata, err := os.ReadFile(key)
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	priv, err := features.ParsePrivateKey(kdata)
	if err != nil {
		return fmt.Errorf("sign: %s: %w", key, err)
	}
	data, err := os.ReadFile(model)
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	sig, err := features.SignBundle(data, priv)
	if err != nil {
		return fmt.Errorf("sign: %s: %w", model, err)
	}
	if err := os.WriteFile(out, sig, 0o644); err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s: key %s signed %s (%d bytes)\n", out, features.KeyID(priv.Public().(ed25519.PublicKey)), model, len(data))
	return nil
}

// trustOptions are the flags of the commands that load bundles and can
// check their signatures.
type trustOptions struct {
	keys string // --trusted-keys: comma-separated public key files
	sig  string // --signature: the bundle's signature file; "" means BUNDLE.sig
}

func (t *trustOptions) register(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&t.keys, "trusted-keys", "", "comma-separated public key files ('augur keygen' KEY.pub): refuse the bundle unless one of them signed it")
	fs.StringVar(&t.sig, "signature", "", "the bundle's signature file ('augur sign'; default BUNDLE.sig)")
}

// load reads the trusted keys and the bundle's signature file, if any (an
// absent one is nil: an unsigned bundle).
func (t *trustOptions) load(model string) (keys []ed25519.PublicKey, sig []byte, err error) {
	for _, p := range strings.Split(t.keys, ",") {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		k, err := features.ParsePublicKey(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		keys = append(keys, k)
	}
	path := t.sig
	if path == "" {
		path = model + features.SignatureSuffix
	}
	sig, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && t.sig == "" {
		return keys, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if t.sig != "" {
		// Named on the command line: a file that is no signature is a
		// mistake to report, not an unsigned bundle.
		if _, err := features.ParseSignature(sig); err != nil {
			return nil, nil, fmt.Errorf("--signature %s: %w", t.sig, err)
		}
	}
	return keys, sig, nil
}

// signatureState describes a bundle's signature in one line, checked
// against keys when there are any.
func signatureState(data, sig []byte, keys []ed25519.PublicKey) (string, error) {
	if len(keys) > 0 {
		k, err := features.VerifyBundle(data, sig, keys)
		if err != nil {
			return "signature: REFUSED: " + err.Error(), err
		}
		return "signature: verified, signed by trusted key " + features.KeyID(k), nil
	}
	if len(sig) == 0 {
		return "signature: none (unsigned bundle)", nil
	}
	s, err := features.ParseSignature(sig)
	if err != nil {
		return "signature: unreadable: " + err.Error(), nil
	}
	return "signature: present, key " + s.KeyID + ", not checked (give --trusted-keys to check it)", nil
}

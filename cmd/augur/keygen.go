package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/augur-tuning/augur/features"
)

func runKeygen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var out string
	fs := flags("keygen", "--out KEY", stderr)
	fs.StringVar(&out, "out", "", "private key file to write (mode 0600); the public key goes to KEY.pub")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "out"); err != nil {
		return err
	}
	priv, pub, err := features.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	// Neither file is ever overwritten: a lost private key cannot sign
	// again, and a replaced one would sign bundles no fleet trusts.
	if err := writeNew(out, priv, 0o600); err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	if err := writeNew(out+".pub", pub, 0o644); err != nil {
		return errors.Join(fmt.Errorf("keygen: %w", err), os.Remove(out))
	}
	k, _ := features.ParsePublicKey(pub)
	fmt.Fprintf(stdout, "wrote %s (private, keep it secret) and %s (public, key %s)\n", out, out+".pub", features.KeyID(k))
	return nil
}

// writeNew writes data to a file that must not exist yet, with mode perm.
func writeNew(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

package runtime

import (
	"github.com/augur-tuning/augur/features"
)

// checkTrust verifies the bundle's signature when Options.TrustedKeys asks
// for one, before a byte of the bundle is parsed, and returns the signing
// key's ID ("" when no keys are configured).
func checkTrust(bundle []byte, opt Options) (string, error) {
	if len(opt.TrustedKeys) == 0 {
		return "", nil
	}
	k, err := features.VerifyBundle(bundle, opt.Signature, opt.TrustedKeys)
	if err != nil {
		return "", untrustedError{err}
	}
	return features.KeyID(k), nil
}

// SignedBy returns the ID (features.KeyID) of the trusted key that signed
// the bundle, or "" when New was given no trusted keys and so checked no
// signature.
func (c *Chooser) SignedBy() string { return c.signer }

// untrustedError is a signature New refused: its message is features',
// which names the package and the fault, and it matches ErrUntrusted as well as
// features.ErrSignature.
type untrustedError struct{ err error }

func (e untrustedError) Error() string { return e.err.Error() }

func (e untrustedError) Unwrap() []error { return []error{ErrUntrusted, e.err} }

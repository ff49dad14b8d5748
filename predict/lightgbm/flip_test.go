package lightgbm_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict/lightgbm"
)

// loadBundle reads a bundle and every model in it as a runtime would
// before predicting.
func loadBundle(data []byte) (*features.Bundle, []*lightgbm.Model, error) {
	b, err := features.ReadBundle(data)
	if err != nil {
		return nil, nil, err
	}
	var ms []*lightgbm.Model
	for _, e := range b.Models {
		m, err := lightgbm.Parse(e.LightGBM)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, m)
	}
	return b, ms, nil
}

// TestBundleFlipSweep flips single bits of a recorded bundle, at
// AUGUR_FLIP_BUNDLE positions drawn with a fixed seed (default 0: the
// test is skipped; each flip parses a 1.7 MB bundle): every flip must be
// detected with a one-line error or leave the bundle and its models as
// they were. The counts go to bench/RESULTS.md.
func TestBundleFlipSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("AUGUR_FLIP_BUNDLE"))
	if n <= 0 {
		t.Skip("set AUGUR_FLIP_BUNDLE=N to flip N bits of a bundle")
	}
	good, err := os.ReadFile(filepath.Join("..", "..", "testdata", "conv2d-pocl.augur"))
	if err != nil {
		t.Fatal(err)
	}
	want, wantModels, err := loadBundle(good)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(26, 2))
	detected, harmless, silent := 0, 0, 0
	b := append([]byte(nil), good...)
	for range n {
		bit := rng.IntN(8 * len(b))
		b[bit/8] ^= 1 << (bit % 8)
		got, gotModels, err := loadBundle(b)
		b[bit/8] ^= 1 << (bit % 8)
		switch {
		case err != nil:
			detected++
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("bit %d: error of several lines: %q", bit, err)
			}
		case reflect.DeepEqual(got, want) && reflect.DeepEqual(gotModels, wantModels):
			harmless++
		default:
			silent++
			t.Errorf("bit %d (byte %d): the bundle loads as another one", bit, bit/8)
		}
	}
	t.Logf("conv2d-pocl.augur, %d bytes: %d flips, %d detected, %d harmless, %d silent", len(good), n, detected, harmless, silent)
}

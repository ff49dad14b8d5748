package features_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
)

const testBundle = "../testdata/conv2d-pocl.augur"

// TestReadBundleDamaged changes one digit at several places of a real
// bundle: every change is refused with ErrChecksum, never read as data.
func TestReadBundleDamaged(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := features.ReadBundle(data); err != nil {
		t.Fatalf("intact bundle: %v", err)
	}
	changed := 0
	for i := len(data) / 7; i < len(data) && changed < 40; i += len(data) / 50 {
		j := bytes.IndexAny(data[i:], "123456789")
		if j < 0 {
			break
		}
		bad := bytes.Clone(data)
		bad[i+j] = '0' + (bad[i+j]-'0'+1)%10
		changed++
		if _, err := features.ReadBundle(bad); !errors.Is(err, features.ErrChecksum) {
			t.Errorf("digit at byte %d changed: err = %v, want ErrChecksum", i+j, err)
		}
	}
	if changed < 10 {
		t.Fatalf("changed only %d digits", changed)
	}
}

func FuzzReadBundle(f *testing.F) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"format":2}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := features.ReadBundle(data)
		if err != nil {
			return
		}
		if _, err := b.Space(); err != nil {
			t.Fatalf("ReadBundle accepted a bundle whose space fails: %v", err)
		}
	})
}

package runtime_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestNewerBundleFormat checks that a bundle written by a newer augur is
// refused with an error that says to upgrade, rather than read wrongly or
// reported as damaged, whether or not its newer layout parses as this one.
func TestNewerBundleFormat(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(map[string]any)
	}{
		{"same layout", func(d map[string]any) {}},
		{"changed layout", func(d map[string]any) { d["models"] = "elsewhere" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := map[string]any{}
			for k, v := range doc {
				d[k] = v
			}
			d["format"] = features.BundleFormat + 1
			tt.edit(d)
			newer, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			_, err = runtime.New(newer, runtime.Options{})
			if !errors.Is(err, features.ErrNewerFormat) {
				t.Fatalf("runtime.New = %v, want features.ErrNewerFormat", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "upgrade augur") || !strings.Contains(msg, features.Version) {
				t.Errorf("error %q does not say to upgrade from augur %s", msg, features.Version)
			}
		})
	}
	// The bundle as written still loads.
	if _, err := runtime.New(data, runtime.Options{}); err != nil {
		t.Fatalf("the unedited bundle: %v", err)
	}
}

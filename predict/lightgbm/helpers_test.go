package lightgbm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// bundleModels returns the LightGBM text of every model in the repository's
// recorded conv2d bundle, which train wrote: real models to read.
func bundleModels(tb testing.TB) []string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "conv2d-pocl.augur"))
	if err != nil {
		tb.Fatal(err)
	}
	var bundle struct {
		Models []struct {
			LightGBM string `json:"lightgbm"`
		} `json:"models"`
	}
	if err := json.Unmarshal(b, &bundle); err != nil {
		tb.Fatal(err)
	}
	if len(bundle.Models) == 0 {
		tb.Fatal("bundle has no models")
	}
	var out []string
	for _, m := range bundle.Models {
		out = append(out, m.LightGBM)
	}
	return out
}

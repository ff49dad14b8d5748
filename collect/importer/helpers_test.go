package importer

import (
	"cmp"
	"os"
	"path/filepath"
	"testing"
)

// kerneltunerDir holds the benchmark hub's Kernel Tuner cache files (see
// testdata/README.md): $AUGUR_KERNELTUNER_DIR, or shared/datasets/kerneltuner
// beside the repository. The tests that read them skip when it is absent.
var kerneltunerDir = cmp.Or(os.Getenv("AUGUR_KERNELTUNER_DIR"), "../../../shared/datasets/kerneltuner")

var (
	a4000 = filepath.Join(kerneltunerDir, "convolution_milo_A4000.json.gz")
	w6600 = filepath.Join(kerneltunerDir, "convolution_milo_W6600.json.gz")
)

// readTestFile reads a file of kerneltunerDir, or skips the test.
func readTestFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("%s is absent", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

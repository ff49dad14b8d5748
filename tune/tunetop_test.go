package tune

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// cancelAt is a progress writer that cancels when a line holds text.
type cancelAt struct {
	mu     sync.Mutex
	text   string
	cancel func()
	lines  []string
}

func (c *cancelAt) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, string(p))
	if strings.Contains(string(p), c.text) {
		c.cancel()
	}
	return len(p), nil
}

// TestTuneTopInterrupted interrupts TuneTop after its first batch: the
// result holds that batch, its measurements are in the wisdom file, and the
// error is ErrInterrupted.
func TestTuneTopInterrupted(t *testing.T) {
	if devs, err := collect.ListDevices(); err != nil || len(devs) == 0 {
		t.Skip("no OpenCL device")
	}
	if testing.Short() {
		t.Skip("measures on the device")
	}
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundleFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := &cancelAt{text: "measured 16 of", cancel: cancel}
	wisdom := filepath.Join(t.TempDir(), "w.jsonl")
	res, err := TuneTop(ctx, k, b, features.Task{64, 64, 3, 3}, TopOptions{K: 3 * topBatch, Repeats: 1, Wisdom: wisdom, Progress: progress})
	if !errors.Is(err, ErrInterrupted) || res == nil {
		t.Fatalf("TuneTop = %v, %v; want the first batch and ErrInterrupted", res, err)
	}
	if len(res.Candidates) != topBatch || res.Best == nil {
		t.Errorf("%d candidates measured, best %v; want %d and a best", len(res.Candidates), res.Best, topBatch)
	}
	f, err := os.Open(wisdom)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		n++
	}
	if n != res.Recorded || n < 2 {
		t.Errorf("the wisdom holds %d records, the result says %d", n, res.Recorded)
	}
}

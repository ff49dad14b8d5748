package runtime_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

var update = flag.Bool("update", false, "rewrite testdata/picks-*.golden from the Chooser's current picks")

// TestPicksUnchanged holds Choose and Candidates to the picks and
// predicted log-speedups (printed exactly) that the Chooser gave, before
// its search and scoring were made faster (session 14, issue 25), for 300
// shapes and the five candidates of every fourth, on three of the
// repository's bundles. A change to what Choose returns must be made on
// purpose, with -update.
func TestPicksUnchanged(t *testing.T) {
	for _, bundle := range []string{"conv2d-h200", "conv2d-pocl", "conv2d-fleet"} {
		t.Run(bundle, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", bundle+".augur"))
			if err != nil {
				t.Fatal(err)
			}
			ch, err := runtime.New(data, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := picks(t, ch, 300)
			golden := filepath.Join("testdata", "picks-"+bundle+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("line %d: got %q, want %q", i+1, g[i], w[i])
					}
				}
				t.Fatalf("got %d lines, want %d", len(g), len(w))
			}
		})
	}
}

// picks prints the pick of n shapes spread over the kernel's shape space
// and the five candidates of every fourth.
func picks(t *testing.T, ch *runtime.Chooser, n int) []byte {
	t.Helper()
	var out bytes.Buffer
	for i := range n {
		s := features.Task{16 + (i*37)%4000, 16 + (i*101)%3000, 3 + 2*(i%5), 3 + 2*((i/5)%5)}
		p, err := ch.ChoosePick(s)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&out, s, p.Config, p.LogSpeedup, p.Source)
		if i%4 != 0 {
			continue
		}
		cs, err := ch.Candidates(features.Task{s[0] + 1, s[1], s[2], s[3]}, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			fmt.Fprintln(&out, " ", c.Config, c.LogSpeedup, c.Source)
		}
	}
	return out.Bytes()
}

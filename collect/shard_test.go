package collect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// TestShardPartition checks that every pair belongs to exactly one shard.
func TestShardPartition(t *testing.T) {
	k := scaleKernel(t)
	for _, n := range []int{1, 2, 3, 7} {
		for _, task := range []features.Task{{1}, {1000}, {4096}} {
			for _, c := range k.Space.All() {
				owners := 0
				for i := range n {
					if (Shard{Index: i, Count: n}).Owns(task, c) {
						owners++
					}
				}
				if owners != 1 {
					t.Errorf("%d shards: pair %v %v has %d owners, want 1", n, task, c, owners)
				}
			}
		}
	}
	if !(Shard{}).Owns(features.Task{1}, features.Config{4, 0}) {
		t.Error("the zero Shard does not own every pair")
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/4", Shard{0, 4}, ""},
		{"3/4", Shard{3, 4}, ""},
		{"0/1", Shard{0, 1}, ""},
		{"4/4", Shard{}, `shard "4/4": want I/N with N >= 1 and 0 <= I < N`},
		{"-1/4", Shard{}, "0 <= I < N"},
		{"0/0", Shard{}, "N >= 1"},
		{"1", Shard{}, "want I/N"},
		{"a/b", Shard{}, "want I/N"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err == "" && (err != nil || got != tc.want) {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseShard(%q) error %v, want one containing %q", tc.in, err, tc.err)
		}
	}
	if _, _, err := (Options{Shard: Shard{Index: 2, Count: 2}}).resolve(); err == nil {
		t.Error("resolve accepted shard 2/2")
	}
}

// pairs reads every row under dir as "task|config status", sorted, and
// fails on a pair recorded twice.
func pairs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := record.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, r := range f.Rows {
			k := pairKey(r.Task, r.Config)
			if seen[k] {
				t.Errorf("%s: pair %s recorded twice", dir, k)
			}
			seen[k] = true
			if r.RefTimeNs <= 0 {
				t.Errorf("%s: pair %s has no reference time", dir, k)
			}
			out = append(out, k+" "+string(r.Status))
		}
	}
	slices.Sort(out)
	return out
}

// TestRunShards runs three shards into one directory, as a job array on a
// shared volume would, and checks that their union is one unsharded run's
// rows, that no shard measured another's pairs, and that resuming every
// shard adds nothing.
func TestRunShards(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	k.Tasks = []features.Task{{1000}, {4096}, {333}}
	whole, shared := t.TempDir(), t.TempDir()
	opt := Options{Sample: "all", Repeats: 1, Seed: 1, Workers: 2, NoBench: true}
	if _, err := Run(context.Background(), k, whole, opt); err != nil {
		t.Fatal(err)
	}
	const n = 3
	total := 0
	for i := range n {
		o := opt
		o.Shard = Shard{Index: i, Count: n}
		sum, err := Run(context.Background(), k, shared, o)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Path != "" && !strings.Contains(filepath.Base(sum.Path), fmt.Sprintf("-shard%dof%d", i, n)) {
			t.Errorf("shard %v wrote %s, want a name carrying the shard", o.Shard, sum.Path)
		}
		_, rows, err := record.ReadFile(sum.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if !o.Shard.Owns(r.Task, r.Config) {
				t.Errorf("shard %v recorded pair %s of another shard", o.Shard, pairKey(r.Task, r.Config))
			}
		}
		if sum.Rows() != len(rows) {
			t.Errorf("shard %v: Rows() = %d, file holds %d", o.Shard, sum.Rows(), len(rows))
		}
		total += len(rows)
	}
	got, want := pairs(t, filepath.Join(shared, "scale")), pairs(t, filepath.Join(whole, "scale"))
	if !slices.Equal(got, want) {
		t.Errorf("union of %d shards:\n%q\nwant the unsharded run's\n%q", n, got, want)
	}
	if total != len(want) {
		t.Errorf("shards recorded %d rows, want %d", total, len(want))
	}
	for i := range n {
		o := opt
		o.Shard = Shard{Index: i, Count: n}
		sum, err := Run(context.Background(), k, shared, o)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Rows() != 0 || sum.Path != "" {
			t.Errorf("resumed shard %v wrote %d rows to %q, want none", o.Shard, sum.Rows(), sum.Path)
		}
		if len(sum.Notes) != 0 {
			t.Errorf("resumed shard %v with the same plan: notes %q, want none", o.Shard, sum.Notes)
		}
	}
	// A shard run with another seed or shard count than the files it
	// joins is warned of.
	for _, o := range []Options{{Seed: 2, Shard: Shard{Index: 0, Count: n}}, {Seed: 1, Shard: Shard{Index: 0, Count: n + 1}}} {
		o.Sample, o.Repeats, o.Workers, o.NoBench = opt.Sample, opt.Repeats, opt.Workers, true
		sum, err := Run(context.Background(), k, shared, o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(sum.Notes, func(n string) bool { return strings.Contains(n, "shards of one collection need the same sample") }) {
			t.Errorf("seed %d, shard %v: notes %q, want the plans' mismatch", o.Seed, o.Shard, sum.Notes)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(shared, "scale"))
	if len(entries) != 1 {
		t.Errorf("shards wrote %d device directories, want 1", len(entries))
	}
}

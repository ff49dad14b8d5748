package train

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestSamples checks the columnar samples: Sample and Samples give back
// what Append added, rows of one task or configuration share one slice, a
// Subset's samples are the rows it took, and an Append to the subset
// leaves the original as it was.
func TestSamples(t *testing.T) {
	var d Data
	d.Features = []string{"x"}
	want := []Sample{
		{Task: features.Task{512, 256}, Config: features.Config{16, 2}, Platform: 0, TimeNs: 1e6, RefTimeNs: 2e6},
		{Task: features.Task{1024, 1024}, Config: features.Config{8, 1}, Platform: 1},
		{Task: features.Task{512, 256}, Config: features.Config{8, 1}, Platform: 1, TimeNs: 3e6, RefTimeNs: 2e6},
		{},
	}
	for i, s := range want {
		if err := d.Append([]float64{float64(i)}, float64(i), s); err != nil {
			t.Fatal(err)
		}
	}
	equal := func(a, b Sample) bool {
		return slices.Equal(a.Task, b.Task) && slices.Equal(a.Config, b.Config) && a.Platform == b.Platform &&
			a.TimeNs == b.TimeNs && a.RefTimeNs == b.RefTimeNs
	}
	n := 0
	for i, s := range d.Samples() {
		if !equal(s, want[i]) || !equal(d.Sample(i), want[i]) {
			t.Errorf("row %d: Samples %+v, Sample %+v; want %+v", i, s, d.Sample(i), want[i])
		}
		n++
	}
	if n != len(want) {
		t.Errorf("Samples gave %d rows, want %d", n, len(want))
	}
	if &d.Sample(0).Task[0] != &d.Sample(2).Task[0] || &d.Sample(1).Config[0] != &d.Sample(2).Config[0] {
		t.Error("rows of one task or configuration do not share its slice")
	}
	for i := range d.Samples() {
		if i > 0 {
			t.Fatal("Samples went on after its loop stopped")
		}
		break
	}

	rows := []int{2, 0, 2}
	sub := d.Subset(rows)
	for j, i := range rows {
		if !equal(sub.Sample(j), want[i]) || sub.Y[j] != d.Y[i] {
			t.Errorf("Subset row %d: %+v, target %g; want row %d's %+v, %g", j, sub.Sample(j), sub.Y[j], i, want[i], d.Y[i])
		}
	}
	extra := Sample{Task: features.Task{7, 7}, Config: features.Config{1, 1}, Platform: 1, TimeNs: 5, RefTimeNs: 6}
	if err := sub.Append([]float64{9}, 9, extra); err != nil {
		t.Fatal(err)
	}
	if got := sub.Sample(3); !equal(got, extra) {
		t.Errorf("Subset's appended row: %+v, want %+v", got, extra)
	}
	if err := d.Append([]float64{1}, 1, Sample{Platform: -1}); err == nil {
		t.Error("Append of a sample of platform -1: no error")
	}
	if len(d.samples.tasks) != 3 || len(d.samples.configs) != 3 || d.Len() != 4 {
		t.Errorf("Append to a Subset changed the original: %d tasks, %d configurations, %d rows; want 3, 3, 4",
			len(d.samples.tasks), len(d.samples.configs), d.Len())
	}
}

// TestMemoryLimit: the testdata/h200 rows, one device's, have most
// features keyed by the task, the device or the configuration; repeated
// forty times they take about 30 bytes a row (a byte or two for each
// feature that is not keyed, 8 a target and 12-16 a sample: a time, a
// byte or two for each of task, configuration, platform and the
// reference time). Their limit is the floor of 256 MiB; the forty times
// take at most forty times the bytes, and their limit is 5/4 of their
// bytes and a fit's, plus 32 MiB, or the floor.
func TestMemoryLimit(t *testing.T) {
	d := loadH200(t)
	keyed := 0
	for f := range d.cols {
		if d.cols[f].byKey != nil {
			keyed++
		}
	}
	// One device: its 14 features; the shape's 4 and 2 derived of it; the
	// 8 parameters and what derives from them alone.
	if keyed < 28 {
		t.Errorf("%d of %d features keyed by the task, the device or the configuration, want at least 28", keyed, len(d.Features))
	}
	t.Logf("%d rows of %d features, %d keyed: %.1f bytes a row, samples %.1f", d.Len(), len(d.Features), keyed,
		float64(d.Bytes())/float64(d.Len()), float64(d.samples.bytes())/float64(d.Len()))
	if got := MemoryLimit(d); got != 256<<20 {
		t.Errorf("MemoryLimit of %d rows = %d, want the floor %d", d.Len(), got, 256<<20)
	}
	rows := make([]int, 40*d.Len()) // 449,280 rows: about 45 MB
	for i := range rows {
		rows[i] = i % d.Len()
	}
	big := d.Subset(rows)
	// The distinct values, tasks and configurations and the keyed
	// columns' tables are counted once; the rows' own bytes dominate.
	plain := len(d.Features) - keyed
	if perRow := float64(big.Bytes()) / float64(big.Len()); perRow < float64(plain+20) || perRow > float64(2*plain+24) {
		t.Errorf("%d rows of %d unkeyed features take %.1f bytes a row, want %d-%d", big.Len(), plain, perRow,
			plain+20, 2*plain+24)
	}
	if got := big.Bytes(); got < 10*d.Bytes() || got > 40*d.Bytes() {
		t.Errorf("%d rows take %d bytes, want 10-40 x %d", big.Len(), got, d.Bytes())
	}
	want := max(256<<20, (big.Bytes()+int64(big.Len())*int64(len(big.Features)+40))*5/4+32<<20)
	if got := MemoryLimit(big); got != want {
		t.Errorf("MemoryLimit of %d rows = %d, want %d", big.Len(), got, want)
	}
}

// TestMeasuredByShape checks the groups of measured rows against grouping
// each row's (task, platform) by map, in the order shapes first appear,
// with rows that are not measured left out; appending to a group leaves
// the next one as it was.
func TestMeasuredByShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var d Data
	d.Features = []string{"x"}
	for i := range 500 {
		s := Sample{Task: features.Task{rng.IntN(4), 7}, Config: features.Config{i % 9}, Platform: rng.IntN(3)}
		if rng.IntN(5) > 0 {
			s.TimeNs, s.RefTimeNs = 1+rng.Float64(), 1+rng.Float64()
		}
		if err := d.Append([]float64{0}, 0, s); err != nil {
			t.Fatal(err)
		}
	}
	type shape struct {
		task     features.TaskKey
		platform int
	}
	index := map[shape]int{}
	var want [][]int
	for i, s := range d.Samples() {
		if !s.Measured() {
			continue
		}
		k := shape{s.Task.Key(), s.Platform}
		g, ok := index[k]
		if !ok {
			g = len(want)
			index[k] = g
			want = append(want, nil)
		}
		want[g] = append(want[g], i)
	}
	got := d.measuredByShape()
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	got[0] = append(got[0], -1)
	if !slices.Equal(got[1], want[1]) {
		t.Errorf("appending to the first group changed the second: %v, want %v", got[1], want[1])
	}
}

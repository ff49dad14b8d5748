package train

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict/lightgbm"
)

// codedData returns a Data of n rows whose features have few distinct
// values (a byte of codes), a few hundred (two bytes) and about one a row,
// with a target that depends on all of them.
func codedData(t testing.TB, n int, seed uint64) *Data {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &Data{Features: []string{"few", "hundreds", "many", "const"}}
	for i := range n {
		x := []float64{float64(rng.IntN(7)), float64(rng.IntN(600)) / 3, rng.NormFloat64(), 1}
		y := math.Sin(x[0]) + x[1]/200 + 0.5*x[2] + 0.1*rng.NormFloat64()
		if err := d.Append(x, y, Sample{Task: features.Task{i % 5}, Config: features.Config{i}}); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// denseRows returns the feature vectors of rows of d (every row when
// rows is nil) as one row-major matrix, and their targets.
func denseRows(d *Data, rows []int) ([]float64, []float64) {
	if rows == nil {
		rows = make([]int, d.Len())
		for i := range rows {
			rows[i] = i
		}
	}
	var x, y []float64
	for _, i := range rows {
		x = d.AppendRow(x, i)
		y = append(y, d.Y[i])
	}
	return x, y
}

func modelText(t *testing.T, r Regressor, names []string) string {
	t.Helper()
	var b strings.Builder
	if err := r.WriteLightGBM(&b, names); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFitRowsSameModel checks that fitting on a Data's coded rows gives
// the model, to the last bit of every threshold and leaf, that fitting on
// a float64 copy of the same rows gives: the coded fit bins each of its
// rows' features exactly as sorting them did.
func TestFitRowsSameModel(t *testing.T) {
	d := codedData(t, 3000, 7)
	if c := &d.cols[1]; c.u16 == nil || len(c.vals) <= 256 {
		t.Fatalf("feature 1 holds %d values, want > 256 in 2-byte codes", len(d.cols[1].vals))
	}
	var every, some []int // every: nil
	for i := range d.Len() {
		if i%5 != 2 {
			some = append(some, i)
		}
	}
	rng := rand.New(rand.NewPCG(3, 3))
	shuffled := rng.Perm(d.Len())[:1000]
	tests := []struct {
		name string
		l    Learner
	}{
		{"gbrt", GBRTOptions{Trees: 20, MaxDepth: 4}},
		{"gbrt few bins", GBRTOptions{Trees: 10, MaxDepth: 3, MaxBins: 16}},
		{"gbrt subsample early stop", GBRTOptions{Trees: 30, MaxDepth: 3, Subsample: 0.5, ColSample: 0.7, EarlyStop: 3, Seed: 5}},
		{"gbrt leaves", GBRTOptions{Trees: 10, MaxLeaves: 9, MinLeaf: 5}},
		{"forest", ForestOptions{Trees: 10, MaxDepth: 8, Seed: 2}},
		{"blend", blendLearner{GBRTOptions{Trees: 10}, ForestOptions{Trees: 5, MaxBins: 32}}},
		{"top anchored", TopOptions{Anchored: true, GBRT: GBRTOptions{Trees: 10, MaxDepth: 4}, GroupColumns: []int{0, 3}}},
		{"top one group", TopOptions{GBRT: GBRTOptions{Trees: 10, MaxDepth: 3}}},
	}
	for _, tt := range tests {
		for _, rows := range [][]int{every, some, shuffled} {
			t.Run(tt.name, func(t *testing.T) {
				got, err := FitRows(tt.l, d, rows)
				if err != nil {
					t.Fatal(err)
				}
				x, y := denseRows(d, rows)
				want, err := tt.l.Fit(x, len(d.Features), y)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := modelText(t, got, d.Features), modelText(t, want, d.Features); g != w {
					t.Errorf("%d rows: the coded fit's model differs from the dense fit's", len(y))
				}
			})
		}
	}
}

// TestFitBuffersSameModel checks that fits that borrow one set of buffers
// in turn, larger and smaller, each give the model that a fit with buffers
// of its own gives: nothing of one fit leaks into the next.
func TestFitBuffersSameModel(t *testing.T) {
	d := codedData(t, 2000, 11)
	var half, most []int
	for i := range d.Len() {
		if i%2 == 0 {
			half = append(half, i)
		}
		if i%7 != 3 {
			most = append(most, i)
		}
	}
	learners := []Learner{
		GBRTOptions{Trees: 15, MaxDepth: 4},
		TopOptions{Anchored: true, GBRT: GBRTOptions{Trees: 10, MaxDepth: 3}, GroupColumns: []int{0}},
		ForestOptions{Trees: 5, MaxDepth: 6, Seed: 4},
		blendLearner{GBRTOptions{Trees: 8}, TopOptions{GBRT: GBRTOptions{Trees: 5}}},
	}
	buf := &fitBuffers{}
	for _, rows := range [][]int{most, half, nil, half} {
		for _, l := range learners {
			got, err := fitRowsWith(l, d, rows, buf)
			if err != nil {
				t.Fatal(err)
			}
			want, err := FitRows(l, d, rows)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := modelText(t, got, d.Features), modelText(t, want, d.Features); g != w {
				t.Errorf("%T on %d rows: the model fitted with lent buffers differs", l, len(rows))
			}
		}
	}
}

func TestCodedColWidens(t *testing.T) {
	tests := []struct {
		name     string
		distinct int
		width    int
	}{
		{"byte", 256, 1},
		{"two bytes", 257, 2},
		{"two bytes full", 65536, 2},
		{"four bytes", 65537, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c codedCol
			n := tt.distinct + 100
			for i := range n {
				c.push(float64((i * 7) % tt.distinct))
			}
			width := 1
			switch {
			case c.u16 != nil:
				width = 2
			case c.u32 != nil:
				width = 4
			}
			if width != tt.width || c.len() != n || len(c.vals) != tt.distinct {
				t.Fatalf("%d rows of %d values in %d-byte codes, want %d of %d in %d", c.len(), len(c.vals), width, n, tt.distinct, tt.width)
			}
			for i := range n {
				if got, want := c.value(i), float64((i*7)%tt.distinct); got != want {
					t.Fatalf("row %d: got %g, want %g", i, got, want)
				}
			}
			rows := []int{n - 1, 0, 3}
			g := c.gather(rows, indexCol{})
			g.set(1, -1) // a new value: g's own copy of the values
			for j, i := range rows {
				want := c.value(i)
				if j == 1 {
					want = -1
				}
				if got := g.value(j); got != want {
					t.Errorf("gathered row %d: got %g, want %g", j, got, want)
				}
			}
			if slices.Contains(c.vals, -1) {
				t.Errorf("setting a gathered row changed the source's values")
			}
		})
	}
}

// TestIndexColWidens checks that indexes keep their values as the column
// widens, by push or by set, from a byte to two or straight to four.
func TestIndexColWidens(t *testing.T) {
	tests := []struct {
		name  string
		ks    []uint32 // pushed in order
		set   uint32   // then given to row 0
		width int
	}{
		{"byte", []uint32{0, 255, 7}, 1, 1},
		{"two bytes by push", []uint32{3, 256, 9}, 65535, 2},
		{"two bytes by set", []uint32{3, 4}, 300, 2},
		{"four bytes from one", []uint32{5, 1 << 20, 6}, 2, 4},
		{"four bytes from two by set", []uint32{5, 1000}, 70000, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c indexCol
			for _, k := range tt.ks {
				c.push(k)
			}
			c.set(0, tt.set)
			want := slices.Clone(tt.ks)
			want[0] = tt.set
			width := c.bytes() / c.len()
			if width != tt.width || c.len() != len(want) {
				t.Fatalf("%d rows in %d-byte indexes, want %d in %d", c.len(), width, len(want), tt.width)
			}
			for i, w := range want {
				if got := c.code(i); got != w {
					t.Errorf("row %d: got %d, want %d", i, got, w)
				}
			}
			g := c.gather([]int{2 % len(want), 0})
			if g.code(0) != want[2%len(want)] || g.code(1) != want[0] || g.bytes() != 2*tt.width {
				t.Errorf("gathered %d, %d in %d bytes; want %d, %d in %d", g.code(0), g.code(1), g.bytes(),
					want[2%len(want)], want[0], 2*tt.width)
			}
		})
	}
}

// TestKeyedColumns checks the columns keyed by the rows' platforms, tasks
// or configurations: a fit on keyed columns gives the model a fit on plain ones gives,
// on every row, some rows and shuffled rows; a Subset keeps them keyed by
// its own rows' keys; an Append makes them plain and keeps their values.
func TestKeyedColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	d := &Data{Features: []string{"few", "device", "shape", "many", "param"}}
	devs, shapes := []float64{3, 1, 2}, []float64{10, 20, 10, 40, 50}
	for i := range 3000 {
		p, task := rng.IntN(3), rng.IntN(5)
		x := []float64{float64(rng.IntN(7)), devs[p], shapes[task], rng.NormFloat64(), float64(i % 50 * 3)}
		y := math.Sin(x[0]) + x[1] + x[2]/20 + 0.5*x[3] + x[4]/100 + 0.1*rng.NormFloat64()
		if err := d.Append(x, y, Sample{Task: features.Task{task}, Config: features.Config{i % 50}, Platform: p}); err != nil {
			t.Fatal(err)
		}
	}
	plain := d.Subset(allRows(d.Len())) // a copy, before d's columns are keyed
	if n := d.keyColumns(); n != 3 || d.cols[1].keyedBy != keyPlatform || d.cols[2].keyedBy != keyTask ||
		d.cols[4].keyedBy != keyConfig {
		t.Fatalf("%d columns keyed (device by %d, shape by %d, param by %d), want 3: by platform, task and configuration",
			n, d.cols[1].keyedBy, d.cols[2].keyedBy, d.cols[4].keyedBy)
	}
	for f := range d.cols {
		for i := range d.Len() {
			if got, want := d.value(i, f), plain.value(i, f); got != want {
				t.Fatalf("feature %d of row %d: keyed %g, plain %g", f, i, got, want)
			}
		}
	}
	var some []int
	for i := range d.Len() {
		if i%3 != 1 {
			some = append(some, i)
		}
	}
	shuffled := rng.Perm(d.Len())[:800]
	for _, l := range []Learner{GBRTOptions{Trees: 10, MaxDepth: 4}, ForestOptions{Trees: 5, MaxDepth: 6, Seed: 1},
		TopOptions{Anchored: true, GBRT: GBRTOptions{Trees: 5, MaxDepth: 3}, GroupColumns: []int{1, 2, 4}}} {
		for _, rows := range [][]int{nil, some, shuffled} {
			got, err := FitRows(l, d, rows)
			if err != nil {
				t.Fatal(err)
			}
			want, err := FitRows(l, plain, rows)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := modelText(t, got, d.Features), modelText(t, want, d.Features); g != w {
				t.Errorf("%T on %d rows: the keyed columns' model differs from the plain columns'", l, len(rows))
			}
		}
	}

	sub := d.Subset(shuffled)
	if sub.cols[1].byKey == nil || sub.cols[2].byKey == nil || sub.cols[4].byKey == nil {
		t.Fatal("a Subset's columns are no longer keyed")
	}
	for j, i := range shuffled {
		if !slices.Equal(sub.Row(j), d.Row(i)) {
			t.Fatalf("Subset row %d: %v, want row %d's %v", j, sub.Row(j), i, d.Row(i))
		}
	}
	if &sub.cols[1].u8[0] != &sub.samples.platform.u8[0] || &sub.cols[2].u8[0] != &sub.samples.task.u8[0] {
		t.Error("a Subset's keyed columns do not share its samples' platforms and tasks")
	}
	x := []float64{1, 7, 99, 0.5, 3} // a new device value for platform 0
	if err := sub.Append(x, 1, Sample{Task: features.Task{0}, Config: features.Config{0}, Platform: 0}); err != nil {
		t.Fatal(err)
	}
	if sub.cols[1].byKey != nil || !slices.Equal(sub.Row(sub.Len()-1), x) {
		t.Errorf("after Append: keyed %v, last row %v; want plain, %v", sub.cols[1].byKey != nil, sub.Row(sub.Len()-1), x)
	}
	for j, i := range shuffled {
		if !slices.Equal(sub.Row(j), d.Row(i)) {
			t.Fatalf("after Append, Subset row %d: %v, want row %d's %v", j, sub.Row(j), i, d.Row(i))
		}
	}
}

// allRows returns 0, 1, ..., n-1.
func allRows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

func TestSubsetAndAppend(t *testing.T) {
	d := codedData(t, 300, 1)
	rows := []int{299, 5, 5, 17}
	s := d.Subset(rows)
	for j, i := range rows {
		if got, want := s.Row(j), d.Row(i); !slices.Equal(got, want) || s.Y[j] != d.Y[i] {
			t.Errorf("subset row %d: got %v %g, want %v %g", j, got, s.Y[j], want, d.Y[i])
		}
	}
	if err := s.Append([]float64{1, 2, 3, 4}, 0.5, Sample{}); err != nil {
		t.Fatal(err)
	}
	if got := s.Row(s.Len() - 1); !slices.Equal(got, []float64{1, 2, 3, 4}) || d.Len() != 300 {
		t.Errorf("appended row %v (source has %d rows), want [1 2 3 4] (300)", got, d.Len())
	}
	tests := []struct {
		name string
		x    []float64
		want string
	}{
		{"short row", []float64{1}, "row of 1 features"},
	}
	for _, tt := range tests {
		if err := s.Append(tt.x, 0, Sample{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

func TestFitRowsErrors(t *testing.T) {
	d := codedData(t, 50, 2)
	bad := d.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21})
	if err := bad.Append([]float64{math.NaN(), 0, 0, 0}, 0, Sample{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		d    *Data
		rows []int
		l    Learner
		want string
	}{
		{"no rows", d, []int{}, GBRTOptions{}, "no training rows"},
		{"nan feature", bad, nil, GBRTOptions{}, "feature 0 of row 22 is NaN"},
		{"nan feature forest", bad, nil, ForestOptions{}, "feature 0 of row 22 is NaN"},
		{"bad options", d, nil, GBRTOptions{MaxBins: 1000}, "MaxBins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := FitRows(tt.l, tt.d, tt.rows); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// BenchmarkFitRows measures a fit on coded rows, binning included, as
// every fold of a learner selection pays it.
func BenchmarkFitRows(b *testing.B) {
	d := codedData(b, 20000, 1)
	l := GBRTOptions{Trees: 20, MaxDepth: 6}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitRows(l, d, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFitParallelSameModel checks that a fit whose every leaf takes the
// parallel paths (histograms by feature, the partition in chunks) gives the
// model, to the last bit, that the same fit on one goroutine gives: the
// rows of every child keep their order, so every sum adds the same numbers
// in the same order.
func TestFitParallelSameModel(t *testing.T) {
	d := codedData(t, 5000, 13)
	parallel := func(g GBRTOptions) GBRTOptions { g.parallelRows = 1; return g }
	tests := []struct {
		name           string
		serial, shared Learner
	}{
		{"gbrt", GBRTOptions{Trees: 10, MaxDepth: 6, MinLeaf: 3},
			parallel(GBRTOptions{Trees: 10, MaxDepth: 6, MinLeaf: 3})},
		{"gbrt leaves l2", GBRTOptions{Trees: 10, MaxLeaves: 20, MinLeaf: 2, L2: 1},
			parallel(GBRTOptions{Trees: 10, MaxLeaves: 20, MinLeaf: 2, L2: 1})},
		{"gbrt subsample colsample early stop", GBRTOptions{Trees: 20, MaxDepth: 5, Subsample: 0.6, ColSample: 0.7, EarlyStop: 3, Seed: 4},
			parallel(GBRTOptions{Trees: 20, MaxDepth: 5, Subsample: 0.6, ColSample: 0.7, EarlyStop: 3, Seed: 4})},
		{"top", TopOptions{GBRT: GBRTOptions{Trees: 8, MaxDepth: 5}, GroupColumns: []int{0}},
			TopOptions{GBRT: parallel(GBRTOptions{Trees: 8, MaxDepth: 5}), GroupColumns: []int{0}}},
		{"rank newton", RankOptions{GBRT: GBRTOptions{Trees: 8, MaxDepth: 5}, GroupColumns: []int{0}},
			RankOptions{GBRT: parallel(GBRTOptions{Trees: 8, MaxDepth: 5}), GroupColumns: []int{0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := FitRows(tt.serial, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := FitRows(tt.shared, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := modelText(t, got, d.Features), modelText(t, want, d.Features); g != w {
				t.Error("the model fitted on several goroutines differs from the serial one")
			}
		})
	}
}

// TestGrowParallelForest grows forest trees (bootstrap rows, drawn more
// than once, and features drawn at every split) on one goroutine and on
// several: the trees are the same, bit for bit.
func TestGrowParallelForest(t *testing.T) {
	d := codedData(t, 4000, 17)
	grow := func(parallelRows int) []lightgbm.Tree {
		rng := rand.New(rand.NewPCG(5, 6))
		b := newBuilder(d.fitSet(nil, &fitBuffers{}), 255, growOptions{maxDepth: 8, minLeaf: 2, rng: rng, parallelRows: parallelRows})
		b.g.splitCols = 2
		copy(b.grad, d.Y)
		drawn := make([]int32, b.n)
		var out []lightgbm.Tree
		for range 4 {
			bootstrap(b.rows, drawn, rng)
			out = append(out, b.grow(b.n, 1, 0))
		}
		return out
	}
	serial, shared := grow(math.MaxInt), grow(1)
	if len(serial[0].SplitFeature) < 10 {
		t.Fatalf("the first tree has %d splits: the test compares little", len(serial[0].SplitFeature))
	}
	if !reflect.DeepEqual(serial, shared) {
		t.Error("the forest's trees grown on several goroutines differ from the serial ones")
	}
}

// BenchmarkBuildHist measures one histogram pass of one goroutine over
// every row of testdata/h200 (11,232 rows, every varying feature): the
// inner loop of a fit, where most of a large fit's time goes.
func BenchmarkBuildHist(b *testing.B) {
	d := loadH200(b)
	bl := newBuilder(d.fitSet(nil, &fitBuffers{}), 255, growOptions{parallelRows: math.MaxInt})
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range bl.grad {
		bl.grad[i] = rng.NormFloat64()
	}
	rows := make([]int32, bl.n)
	for i := range rows {
		rows[i] = int32(i)
	}
	h := make([]histBin, bl.offset[bl.nFeat])
	b.ReportAllocs()
	for b.Loop() {
		bl.buildHist(h, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bl.n*bl.nFeat), "ns/update")
}

// keyedBinsData returns rows whose device, shape and configuration
// features come in groups (two a device, two a shape, three a
// configuration, of 300 configurations, so that a configuration's key
// takes two bytes), keyed, and a plain copy of them.
func keyedBinsData(t testing.TB) (keyed, plain *Data) {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 9))
	d := &Data{Features: []string{"noise", "dev_a", "shape_a", "dev_b", "shape_b", "p1", "p2", "p3", "few"}}
	devs := [][2]float64{{3, 30}, {1, 50}, {2, 10}}
	shapes := [][2]float64{{10, 1}, {20, 1}, {10, 2}, {40, 3}, {50, 1}}
	for range 4000 {
		p, task, c := rng.IntN(3), rng.IntN(5), rng.IntN(300)
		x := []float64{rng.NormFloat64(), devs[p][0], shapes[task][0], devs[p][1], shapes[task][1],
			float64(c % 7), float64(c / 7), float64(c%13) * 0.5, float64(rng.IntN(4))}
		y := 0.5*x[0] + x[1] + x[2]/20 + x[3]/50 + x[4] + math.Sin(x[5]) + x[6]/40 + x[7]/7 + 0.1*rng.NormFloat64()
		if err := d.Append(x, y, Sample{Task: features.Task{task}, Config: features.Config{c}, Platform: p}); err != nil {
			t.Fatal(err)
		}
	}
	plain = d.Subset(allRows(d.Len()))
	if n := d.keyColumns(); n != 7 {
		t.Fatalf("%d columns keyed, want 7", n)
	}
	return d, plain
}

// TestKeyedBins checks that a fit on keyed columns, whose rows hold their
// task's, device's and configuration's keys instead of a bin a feature,
// gives the model of the same fit on plain columns, bit for bit: on every
// row, some rows and shuffled rows, on one goroutine and several.
func TestKeyedBins(t *testing.T) {
	d, plain := keyedBinsData(t)
	keyedSet := func(rows []int) fitSet {
		s := d.fitSet(rows, &fitBuffers{})
		s.keyedRows = 1
		return s
	}
	b := newBuilder(keyedSet(nil), 255, growOptions{})
	if len(b.groups) != 3 || b.stride != 2+1+1+2 || !b.groups[2].wide {
		t.Fatalf("keyed rows take %d bytes in %d groups, want 6 in 3 (the configurations' wide)", b.stride, len(b.groups))
	}
	var some []int
	for i := range d.Len() {
		if i%3 != 1 {
			some = append(some, i)
		}
	}
	shuffled := rand.New(rand.NewPCG(1, 1)).Perm(d.Len())[:1500]
	parallel := GBRTOptions{Trees: 5, MaxDepth: 6, MinLeaf: 2, parallelRows: 1}
	for _, l := range []Learner{GBRTOptions{Trees: 10, MaxDepth: 5}, parallel,
		ForestOptions{Trees: 4, MaxDepth: 8, MinLeaf: 2, ColSample: 0.5, Seed: 2},
		TopOptions{Anchored: true, GBRT: GBRTOptions{Trees: 5, MaxDepth: 4}, GroupColumns: []int{1, 2}},
		BlendCandidate(GBRTCandidate(GBRTOptions{Trees: 5, MaxDepth: 4}), ForestCandidate(ForestOptions{Trees: 3, Seed: 3})).Learner} {
		for _, rows := range [][]int{nil, some, shuffled} {
			got, err := fitOn(l, keyedSet(rows))
			if err != nil {
				t.Fatal(err)
			}
			want, err := FitRows(l, plain, rows)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := modelText(t, got, d.Features), modelText(t, want, d.Features); g != w {
				t.Errorf("%T on %d rows: the keyed bins' model differs from the plain bins'", l, len(rows))
			}
		}
	}
}

// TestKeyedBinsHist checks the keyed builder's histograms, with and
// without hessians, and its partitions by every feature against the plain
// builder's, on one goroutine and several.
func TestKeyedBinsHist(t *testing.T) {
	d, plain := keyedBinsData(t)
	rng := rand.New(rand.NewPCG(2, 3))
	rows := make([]int32, 0, d.Len())
	for i := range d.Len() {
		if rng.IntN(3) > 0 {
			rows = append(rows, int32(i))
		}
	}
	keyed := d.fitSet(nil, nil)
	keyed.keyedRows = 1
	for _, par := range []int{math.MaxInt, 1} {
		kb := newBuilder(keyed, 255, growOptions{parallelRows: par})
		pb := newBuilder(plain.fitSet(nil, nil), 255, growOptions{parallelRows: par})
		if len(pb.groups) != 0 || len(kb.groups) == 0 || !slices.Equal(kb.offset, pb.offset) {
			t.Fatalf("keyed builder has %d groups and plain %d; offsets %v and %v", len(kb.groups), len(pb.groups), kb.offset, pb.offset)
		}
		for i := range kb.grad {
			kb.grad[i] = rng.NormFloat64()
		}
		copy(pb.grad, kb.grad)
		for _, hess := range []bool{false, true} {
			kb.hess, pb.hess = nil, nil
			if hess {
				kb.hess = make([]float64, d.Len())
				for i := range kb.hess {
					kb.hess[i] = rng.Float64()
				}
				pb.hess = kb.hess
			}
			hk, hp := kb.getHist(), pb.getHist()
			kb.buildHist(hk, rows)
			pb.buildHist(hp, rows)
			if !slices.Equal(hk, hp) {
				t.Errorf("parallel rows %d, hessians %v: the keyed histograms differ from the plain ones", par, hess)
			}
		}
		for f := range kb.nFeat {
			sp := split{feature: f, bin: len(kb.upper[f]) / 2}
			copy(kb.rows, rows)
			copy(pb.rows, rows)
			mk, mp := kb.partition(0, len(rows), sp), pb.partition(0, len(rows), sp)
			if mk != mp || !slices.Equal(kb.rows[:len(rows)], pb.rows[:len(rows)]) {
				t.Errorf("parallel rows %d: the partition by feature %d differs (%d rows left, plain %d)", par, f, mk, mp)
			}
		}
	}
}

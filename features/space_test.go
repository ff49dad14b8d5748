package features

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

func testSpace(t testing.TB) *Space {
	t.Helper()
	s, err := NewSpace([]Param{
		{Name: "wg", Values: []int{8, 16, 32}},
		{Name: "wpt", Values: []int{1, 2, 4}},
		{Name: "vw", Values: []int{1, 2, 4}},
	}, []string{"wpt % vw == 0", "wg * wpt <= 64"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSpaceCounts(t *testing.T) {
	s := testSpace(t)
	if got, want := s.RawSize(), 27; got != want {
		t.Errorf("RawSize = %d, want %d", got, want)
	}
	// wpt%vw==0 leaves (1,1),(2,1),(2,2),(4,1),(4,2),(4,4); wg*wpt<=64 drops wg=32,wpt=4.
	if got, want := s.Len(), 3*6-3; got != want {
		t.Errorf("Len = %d, want %d", got, want)
	}
	if got := len(s.All()); got != s.Len() {
		t.Errorf("len(All()) = %d, want Len() = %d", got, s.Len())
	}
}

func TestSpaceValid(t *testing.T) {
	s := testSpace(t)
	tests := []struct {
		c    Config
		want error
	}{
		{Config{8, 1, 1}, nil},
		{Config{16, 4, 4}, nil},
		{Config{32, 4, 1}, ErrConstraint},
		{Config{8, 1, 2}, ErrConstraint},
		{Config{12, 1, 1}, ErrOutOfDomain},
		{Config{8, 1}, ErrOutOfDomain},
	}
	for _, tt := range tests {
		err := s.Check(tt.c)
		if !errors.Is(err, tt.want) && !(err == nil && tt.want == nil) {
			t.Errorf("Check(%v) = %v, want %v", tt.c, err, tt.want)
		}
		if got := s.Valid(tt.c); got != (tt.want == nil) {
			t.Errorf("Valid(%v) = %v, want %v", tt.c, got, tt.want == nil)
		}
	}
}

func TestNewSpaceErrors(t *testing.T) {
	tests := []struct {
		name   string
		params []Param
		cons   []string
	}{
		{"empty values", []Param{{Name: "a"}}, nil},
		{"duplicate name", []Param{{Name: "a", Values: []int{1}}, {Name: "a", Values: []int{2}}}, nil},
		{"duplicate value", []Param{{Name: "a", Values: []int{1, 1}}}, nil},
		{"bad name", []Param{{Name: "a b", Values: []int{1}}}, nil},
		{"unknown name in constraint", []Param{{Name: "a", Values: []int{1}}}, []string{"b == 1"}},
		{"not boolean", []Param{{Name: "a", Values: []int{1}}}, []string{"a + 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewSpace(tt.params, tt.cons); !errors.Is(err, ErrSyntax) {
				t.Errorf("NewSpace error = %v, want ErrSyntax", err)
			}
		})
	}
}

func TestSampleDistinctValid(t *testing.T) {
	s := testSpace(t)
	rng := rand.New(rand.NewPCG(1, 2))
	got := s.Sample(rng, 10)
	if len(got) != 10 {
		t.Fatalf("Sample returned %d, want 10", len(got))
	}
	seen := map[string]bool{}
	for _, c := range got {
		if !s.Valid(c) {
			t.Errorf("Sample returned invalid %v", c)
		}
		if seen[s.Format(c)] {
			t.Errorf("Sample repeated %v", c)
		}
		seen[s.Format(c)] = true
	}
	if got := s.Sample(rng, 1000); len(got) != s.Len() {
		t.Errorf("Sample(1000) = %d configs, want all %d", len(got), s.Len())
	}
}

func TestParseConfigRoundTrip(t *testing.T) {
	s := testSpace(t)
	for _, c := range s.All() {
		got, err := s.Parse(s.Format(c))
		if err != nil || !got.Equal(c) {
			t.Errorf("Parse(Format(%v)) = %v, %v", c, got, err)
		}
	}
	for _, bad := range []string{"", "wg=8", "wg=8,wpt=1,vw=1,x=2", "wg=8,wpt=1,vw=q", "wg=32,wpt=4,vw=1"} {
		if _, err := s.Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", bad)
		}
	}
}

func BenchmarkValid(b *testing.B) {
	s := testSpace(b)
	c := Config{16, 4, 2}
	b.ReportAllocs()
	for b.Loop() {
		if !s.Valid(c) {
			b.Fatal("invalid")
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	s := testSpace(f)
	f.Add("wg=8,wpt=1,vw=1")
	f.Add("wg=16, wpt=4 ,vw=4")
	f.Add("wg==,")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := s.Parse(text)
		if err != nil {
			return
		}
		if !s.Valid(c) {
			t.Fatalf("Parse(%q) returned invalid %v", text, c)
		}
		again, err := s.Parse(s.Format(c))
		if err != nil || !again.Equal(c) {
			t.Fatalf("round trip of %q: %v, %v", text, again, err)
		}
	})
}

// TestSpaceMatchesDirectEvaluation checks the tabulated and walked
// constraints against a plain evaluation of every expression on every raw
// configuration, for a tabulated space, one whose constraint is too large
// to tabulate, and constraints that mention no parameter.
func TestSpaceMatchesDirectEvaluation(t *testing.T) {
	wide := make([]int, 50)
	for i := range wide {
		wide[i] = i + 1
	}
	tests := []struct {
		name   string
		params []Param
		cons   []string
	}{
		{"gemm", gemmParams[:10], gemmConstraints},
		{"untabulated", []Param{{Name: "a", Values: wide}, {Name: "b", Values: wide}, {Name: "c", Values: wide}},
			[]string{"(a * b + c) % 7 == 0", "a <= b"}},
		{"constant true", []Param{{Name: "a", Values: []int{1, 2}}}, []string{"1 < 2", "a > 1"}},
		{"constant false", []Param{{Name: "a", Values: []int{1, 2}}}, []string{"a > 1", "1 > 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSpace(tt.params, tt.cons)
			if err != nil {
				t.Fatal(err)
			}
			var progs []*vm.Program
			env := map[string]any{}
			for _, p := range tt.params {
				env[p.Name] = 0
			}
			for _, c := range tt.cons {
				prog, err := expr.Compile(c, expr.Env(env), expr.AsBool())
				if err != nil {
					t.Fatal(err)
				}
				progs = append(progs, prog)
			}
			c := make(Config, len(tt.params))
			want := 0
			for i := 0; i < s.RawSize(); i++ {
				s.decode(i, c)
				for k, p := range tt.params {
					env[p.Name] = c[k]
				}
				ok := true
				for _, prog := range progs {
					if out, err := vm.Run(prog, env); err != nil || !out.(bool) {
						ok = false
						break
					}
				}
				if ok {
					want++
				}
				if got := s.Valid(c); got != ok {
					t.Fatalf("Valid(%s) = %v, want %v", s.Format(c), got, ok)
				}
			}
			if got := s.Len(); got != want {
				t.Errorf("Len = %d, want %d", got, want)
			}
			n := 0
			s.Each(func(Config) bool { n++; return true })
			if n != want {
				t.Errorf("Each visits %d, want %d", n, want)
			}
		})
	}
}

func TestSpaceIndex(t *testing.T) {
	s, err := NewSpace([]Param{
		{Name: "a", Values: []int{1, 2, 4}},
		{Name: "b", Values: []int{0, 1}},
	}, []string{"a * (b + 1) <= 4"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, c := range s.All() {
		i := s.Index(c)
		if i < 0 || i >= s.RawSize() || seen[i] {
			t.Errorf("Index(%v) = %d: out of [0, %d) or repeated", c, i, s.RawSize())
		}
		seen[i] = true
	}
	for _, c := range []Config{{3, 0}, {1}, {1, 0, 0}, {1, 2}} {
		if i := s.Index(c); i != -1 {
			t.Errorf("Index(%v) = %d, want -1", c, i)
		}
	}
}

func TestWithSmaller(t *testing.T) {
	s, err := NewSpace([]Param{
		{Name: "wg", Values: []int{8, 16, 32}},
		{Name: "wpt", Values: []int{1, 2}},
	}, []string{"wg * wpt <= 32"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		ran   []Config
		group []string
		want  []Config
	}{
		{"no group", []Config{{32, 1}}, nil, []Config{{32, 1}}},
		{"unknown name", []Config{{32, 1}}, []string{"nope"}, []Config{{32, 1}}},
		{"smaller only", []Config{{16, 2}}, []string{"wg"}, []Config{{16, 2}, {8, 2}}},
		{"others fixed", []Config{{32, 1}}, []string{"wg"}, []Config{{32, 1}, {8, 1}, {16, 1}}},
		{"invalid ran dropped", []Config{{32, 2}, {8, 1}}, []string{"wg"}, []Config{{8, 1}}},
		{"each once", []Config{{16, 1}, {8, 1}}, []string{"wg"}, []Config{{16, 1}, {8, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.WithSmaller(tc.ran, tc.group)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("WithSmaller(%v, %v) = %v, want %v", tc.ran, tc.group, got, tc.want)
			}
		})
	}
}

// TestSpaceRemainderOfDivision: a constraint that takes the remainder of a
// true division, as Kernel Tuner's CLBlast GEMM spaces write them in
// Python, compiles and keeps what Python keeps (expr's own % refuses a
// float operand).
func TestSpaceRemainderOfDivision(t *testing.T) {
	params := []Param{
		{Name: "KWG", Values: []int{16, 32}},
		{Name: "MDIMC", Values: []int{8, 16, 32}},
		{Name: "NDIMC", Values: []int{8, 16, 32}},
		{Name: "MDIMA", Values: []int{8, 16, 32}},
	}
	tests := []struct {
		python string
		keep   func(kwg, mdimc, ndimc, mdima float64) bool // Python's reading
	}{
		{"KWG % ((MDIMC * NDIMC)/MDIMA) == 0", func(k, c, n, a float64) bool { return pyMod(k, c*n/a) == 0 }},
		{"(MDIMC * NDIMC) / MDIMA % 4 != 0", func(k, c, n, a float64) bool { return pyMod(c*n/a, 4) != 0 }},
		{"KWG % 2.5 <= 1", func(k, c, n, a float64) bool { return pyMod(k, 2.5) <= 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.python, func(t *testing.T) {
			c, err := TranslatePython(tt.python)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSpace(params, []string{c})
			if err != nil {
				t.Fatalf("NewSpace(%q): %v", c, err)
			}
			want := 0
			for _, k := range params[0].Values {
				for _, m := range params[1].Values {
					for _, n := range params[2].Values {
						for _, a := range params[3].Values {
							keep := tt.keep(float64(k), float64(m), float64(n), float64(a))
							if keep {
								want++
							}
							if got := s.Valid(Config{k, m, n, a}); got != keep {
								t.Errorf("Valid(%d, %d, %d, %d) = %v, want %v", k, m, n, a, got, keep)
							}
						}
					}
				}
			}
			if got := s.Len(); got != want || want == 0 || want == s.RawSize() {
				t.Errorf("%d valid of %d, want %d (some, not all)", got, s.RawSize(), want)
			}
		})
	}
}

func TestPyMod(t *testing.T) {
	tests := []struct{ a, b, want float64 }{
		{7, 3, 1}, {-7, 3, 2}, {7, -3, -2}, {7.5, 2, 1.5}, {32, 2.5, 2}, {6, 3, 0},
	}
	for _, tt := range tests {
		if got := pyMod(tt.a, tt.b); got != tt.want {
			t.Errorf("pyMod(%g, %g) = %g, want %g (Python's %%)", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestLenOfHugeSpace counts a space too large for the validity bitmap, the
// parameters no constraint names multiplied in, against the count in
// closed form.
func TestLenOfHugeSpace(t *testing.T) {
	params := []Param{{Name: "a", Values: seq(64)}, {Name: "b", Values: seq(64)}, {Name: "c", Values: seq(64)}, {Name: "d", Values: seq(64)}, {Name: "e", Values: seq(2)}}
	tests := []struct {
		cons []string
		want int
	}{
		{[]string{"a <= b"}, 64 * 65 / 2 * 64 * 64 * 2},
		{[]string{"a <= b", "e == 2"}, 64 * 65 / 2 * 64 * 64},
		{[]string{"c % 4 == 0", "a + d == 65"}, 64 * 16 * 64 * 2},
		{nil, 1 << 25},
		{[]string{"1 > 2"}, 0},
	}
	for _, tt := range tests {
		s, err := NewSpace(params, tt.cons)
		if err != nil {
			t.Fatal(err)
		}
		if s.RawSize() <= maxBitmap {
			t.Fatalf("raw size %d: not past the bitmap, the test shows nothing", s.RawSize())
		}
		if got := s.Len(); got != tt.want {
			t.Errorf("%q: Len = %d, want %d", tt.cons, got, tt.want)
		}
		if got := s.Len(); got != tt.want {
			t.Errorf("%q: Len again = %d, want %d", tt.cons, got, tt.want)
		}
	}
}

// TestSampleLarge samples spaces of too many valid configurations to list:
// one where random raw draws find them, one where they are too rare and a
// walk keeps a reservoir. Every draw is valid and distinct, and a
// parameter no constraint names is drawn evenly.
func TestSampleLarge(t *testing.T) {
	six := []Param{{Name: "a", Values: seq(64)}, {Name: "b", Values: seq(64)}, {Name: "c", Values: seq(64)},
		{Name: "d", Values: seq(64)}, {Name: "e", Values: seq(2)}, {Name: "f", Values: seq(64)}}
	tests := []struct {
		name   string
		params []Param
		cons   []string
		n      int
	}{
		{"dense", six[:5], []string{"a <= b"}, 500},
		{"sparse", six, []string{"a <= 2 and b <= 8"}, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSpace(tt.params, tt.cons)
			if err != nil {
				t.Fatal(err)
			}
			if s.Len() <= sampleListMax {
				t.Fatalf("%d valid configurations: Sample would list them, the test shows nothing", s.Len())
			}
			got := s.Sample(rand.New(rand.NewPCG(1, 2)), tt.n)
			if len(got) != tt.n {
				t.Fatalf("%d configurations, want %d", len(got), tt.n)
			}
			seen := map[int]bool{}
			sum := 0.0
			for _, c := range got {
				if !s.Valid(c) || seen[s.Index(c)] {
					t.Fatalf("%s: invalid or drawn twice", s.Format(c))
				}
				seen[s.Index(c)] = true
				sum += float64(c[2])
			}
			// c is uniform on 1..64: mean 32.5, standard error 18.5/sqrt(n).
			if mean := sum / float64(tt.n); math.Abs(mean-32.5) > 5*18.5/math.Sqrt(float64(tt.n)) {
				t.Errorf("mean of c %.1f, want about 32.5", mean)
			}
		})
	}
}

// seq returns 1, 2, ..., n.
func seq(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i + 1
	}
	return v
}

package features

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestPythonValues(t *testing.T) {
	tests := []struct {
		src  string
		want []int
	}{
		{"[1, 2, 4]", []int{1, 2, 4}},
		{"[1, 2, 4,]", []int{1, 2, 4}},
		{"(8, 16)", []int{8, 16}},
		{"(8,)", []int{8}},
		{"[]", nil},
		{"[-1, 2*3, 2**10, 7 // 2]", []int{-1, 6, 1024, 3}},
		{"[1 & 2, 3 | 4, 1 << 3, ~5, 3 if 1 > 2 else 4]", []int{0, 7, 8, -6, 4}}, // as python3
		{"range(4)", []int{0, 1, 2, 3}},
		{"range(10, 0, -3)", []int{10, 7, 4, 1}},
		{"[2**i for i in range(0, 6)]", []int{1, 2, 4, 8, 16, 32}},
		{"[i for i in range(1, 11)]", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"[1, 2, 4, 8, 16] + list(range(32, 128+1, 32))", []int{1, 2, 4, 8, 16, 32, 64, 96, 128}},
		{"[i * 16 for i in range(1, 9) if i % 2 == 0]", []int{32, 64, 96, 128}},
		{"[x for x in [1, 2, 3] + [4]]", []int{1, 2, 3, 4}},
		{"[True, False]", []int{1, 0}},
		{"list(2**i for i in range(3))", []int{1, 2, 4}},
		{"list((4, 8))", []int{4, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := PythonValues(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPythonValuesErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"", "want a list"},
		{"4", "want a list"},
		{"[1, 2", "want , or ]"},
		{"[2**-1]", "not an integer"},
		{"[1.5]", "not an integer"},
		{"[n]", "cannot evaluate"},
		{"[i for j in range(3)]", "cannot evaluate"},
		{"[i for in range(3)]", "want a name"},
		{"range(1, 2, 0)", "step is 0"},
		{"range(1, 2, 3, 4)", "1 to 3 arguments"},
		{"range(10**9)", "more than"},
		{"[1] [2]", "after the list"},
		{"(4)", "not a list"},
		{"[1] + 2", "want a list"},
		{"[x for x in range(3) if]", "unexpected"},
		{"[1 @ 2]", "character"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := PythonValues(tt.src)
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want a *SyntaxError saying %q", err, tt.msg)
			}
		})
	}
}

// FuzzPythonValues: any input gives values or a *SyntaxError, never a
// panic, and never more than MaxPythonValues values.
func FuzzPythonValues(f *testing.F) {
	for _, s := range []string{"[1, 2]", "range(3)", "[2**i for i in range(4) if i > 1]", "[1] + list(range(2, 9, 2))", "(1,)", "[", "range(", "[i for i in"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		v, err := PythonValues(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: error %v is not a *SyntaxError", src, err)
			}
			return
		}
		if len(v) > MaxPythonValues {
			t.Fatalf("%q: %d values", src, len(v))
		}
	})
}

// FuzzPythonLists: PythonStrings and PythonNumbers give a list or a
// *SyntaxError, never a panic; every number they give parses as one.
func FuzzPythonLists(f *testing.F) {
	for _, s := range []string{"['fast', 'exact']", `("a", 'b',)`, "[0.5, -1.5, +2e-1, 3]", "[1e400]", "['a\\b']", "[-]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := PythonStrings(src); err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("PythonStrings(%q): %v is not a *SyntaxError", src, err)
			}
		}
		nums, err := PythonNumbers(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("PythonNumbers(%q): %v is not a *SyntaxError", src, err)
			}
			return
		}
		for _, n := range nums {
			if _, err := strconv.ParseFloat(n, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
				t.Fatalf("PythonNumbers(%q) gave %q, not a number", src, n)
			}
		}
	})
}

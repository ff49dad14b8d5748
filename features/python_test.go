package features

import (
	"errors"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
)

func TestTranslatePython(t *testing.T) {
	tests := []struct {
		py, want string
	}{
		{"use_padding==0 or block_size_x % 32 != 0", "use_padding == 0 or block_size_x % 32 != 0"},
		{"block_size_x*block_size_y<=1024", "block_size_x * block_size_y <= 1024"},
		{"use_shmem == 0 or (((block_size_x*tile_size_x+(filter_width-1)))*((block_size_y*tile_size_y+(filter_height-1)))) < 12*1024",
			"use_shmem == 0 or (block_size_x * tile_size_x + (filter_width - 1)) * (block_size_y * tile_size_y + (filter_height - 1)) < 12 * 1024"},
		{"a // b == 3", "int(floor(a / b)) == 3"},
		{"(262144 // a) // b > 0", "int(floor(int(floor(262144 / a)) / b)) > 0"},
		{"a * b // c", "int(floor(a * b / c))"},
		{"a // (b + c)", "int(floor(a / (b + c)))"},
		{"a ** 2 <= 64", "a ** 2 <= 64"},
		{"-2 ** 2", "-(2 ** 2)"},
		{"not a == 1", "not (a == 1)"},
		{"not (a == 1 and b == 2)", "not (a == 1 and b == 2)"},
		{"a < b <= c", "a < b and b <= c"},
		{"a in [1, 2, 4]", "a in [1, 2, 4]"},
		{"a not in (1, 2,)", "not (a in [1, 2])"},
		{"a == 1 or b == 2 and c == 3", "a == 1 or b == 2 and c == 3"},
		{"(a == 1 or b == 2) and c == 3", "(a == 1 or b == 2) and c == 3"},
		{"a - (b - c)", "a - (b - c)"},
		{"min(a, b) * 2 >= max(c, 4)", "min(a, b) * 2 >= max(c, 4)"},
		{"a & b << 2 == 0", "bitand(a, bitshl(b, 2)) == 0"},
		{"x if a < b else y + 1", "(a < b ? x : y + 1)"},
		{"True", "true"},
		{"x / 2 > 1.5e0", "x / 2 > 1.5e0"},
	}
	for _, tt := range tests {
		t.Run(tt.py, func(t *testing.T) {
			got, err := TranslatePython(tt.py)
			if err != nil {
				t.Fatalf("TranslatePython(%q): %v", tt.py, err)
			}
			if got != tt.want {
				t.Errorf("TranslatePython(%q)\n got %q\nwant %q", tt.py, got, tt.want)
			}
		})
	}
}

// TestTranslatePythonValues evaluates translations with expr and compares
// them with what Python computes (results taken from python3).
func TestTranslatePythonValues(t *testing.T) {
	tests := []struct {
		py   string
		env  map[string]any
		want any
	}{
		{"a // b", map[string]any{"a": 7, "b": 2}, 3},
		{"a // b", map[string]any{"a": -7, "b": 2}, -4},
		{"a // b", map[string]any{"a": 7, "b": -2}, -4},
		{"a // b % 3", map[string]any{"a": 12, "b": 5}, 2},
		{"-2 ** 2", nil, -4.0},
		{"2 ** 3 ** 2", nil, 512.0},
		{"not a == 1", map[string]any{"a": 1}, false},
		{"1 < a < 3", map[string]any{"a": 5}, false},
		{"1 < a < 3", map[string]any{"a": 2}, true},
		{"a not in [1, 2]", map[string]any{"a": 3}, true},
		{"7 / 2 == 3.5", nil, true},
		// Bitwise operators and conditional expressions, as python3 computes them.
		{"a & 1 == 0", map[string]any{"a": 5}, false},
		{"(a & (a - 1)) == 0", map[string]any{"a": 16}, true},
		{"(a & b) | 1", map[string]any{"a": 6, "b": 5}, 5},
		{"a ^ 3", map[string]any{"a": 6}, 5},
		{"~a", map[string]any{"a": 5}, -6},
		{"1 << a", map[string]any{"a": 3}, 8},
		{"a >> 1", map[string]any{"a": -9}, -5},
		{"2 + 3 & 6", nil, 4},
		{"1 | 2 ^ 3 & 4", nil, 3},
		{"3 if a > 2 else 4", map[string]any{"a": 1}, 4},
		{"1 if a > 1 else 4 if a < 0 else 5", map[string]any{"a": 0}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.py, func(t *testing.T) {
			e, err := TranslatePython(tt.py)
			if err != nil {
				t.Fatal(err)
			}
			got, err := expr.Eval(e, tt.env)
			if err != nil {
				t.Fatalf("expr.Eval(%q): %v", e, err)
			}
			if got != tt.want {
				t.Errorf("%s = %v (%T) via %q, want %v (%T)", tt.py, got, got, e, tt.want, tt.want)
			}
		})
	}
}

// TestTranslatePythonStrings checks string literals read as the numbers
// of a string parameter's values.
func TestTranslatePythonStrings(t *testing.T) {
	strs := map[string]int{"fast": 0, "exact": 1}
	for _, tc := range []struct{ py, want string }{
		{"MODE == 'exact'", "MODE == 1"},
		{`MODE != "fast" or WG > 64`, "MODE != 0 or WG > 64"},
		{"MODE in ['fast', 'exact']", "MODE in [0, 1]"},
	} {
		got, err := TranslatePythonNames(tc.py, PythonNames{Strings: strs})
		if err != nil || got != tc.want {
			t.Errorf("TranslatePythonNames(%q) = %q, %v; want %q", tc.py, got, err, tc.want)
		}
	}
}

func TestPythonStrings(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
		err  string
	}{
		{"['fast', 'exact']", []string{"fast", "exact"}, ""},
		{`("a", 'b',)`, []string{"a", "b"}, ""},
		{"[]", nil, ""},
		{"['a', 1]", nil, "want a string"},
		{"'a'", nil, "want a list"},
		{"['a'] + ['b']", nil, "after the list"},
		{"['a' 'b']", nil, `want ","`},
	} {
		got, err := PythonStrings(tc.src)
		if tc.err != "" {
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("PythonStrings(%q): err %v, want a *SyntaxError with %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("PythonStrings(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestTranslatePythonNumbers checks a float parameter's name read as the
// value its number stands for, with python3's results.
func TestTranslatePythonNumbers(t *testing.T) {
	n := PythonNames{Numbers: map[string][]string{"ratio": {"0.5", "-1.5", "2e-1"}}}
	for _, tc := range []struct {
		py    string
		ratio int
		want  float64
	}{
		{"ratio > 0.4", 0, 1},
		{"ratio > 0.4", 1, 0},
		{"ratio * 10", 2, 2},
		{"-ratio", 1, 1.5},
	} {
		e, err := TranslatePythonNames(tc.py, n)
		if err != nil {
			t.Fatal(err)
		}
		c, err := CompileCalc(e, []string{"ratio"})
		if err != nil {
			t.Fatal(err)
		}
		if g := c.Eval([]float64{float64(tc.ratio)}); g != tc.want {
			t.Errorf("%s with ratio numbered %d = %g via %q, want %g", tc.py, tc.ratio, g, e, tc.want)
		}
	}
	got, err := PythonNumbers("[0.5, -1.5, +2e-1, 3]")
	if err != nil || strings.Join(got, " ") != "0.5 -1.5 2e-1 3" {
		t.Errorf("PythonNumbers = %q, %v", got, err)
	}
	if _, err := PythonNumbers("[0.5, 'a']"); err == nil {
		t.Error("PythonNumbers took a string")
	}
}

func TestTranslatePythonConstants(t *testing.T) {
	got, err := TranslatePythonWith("(block_size_x + (filter_width - 1)) * (k - off) < 100", map[string]int{"filter_width": 15, "off": -3})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(block_size_x + (15 - 1)) * (k - (-3)) < 100"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTranslatePythonErrors(t *testing.T) {
	tests := []struct {
		py      string
		pos     int
		message string
	}{
		{"a @ 1", 2, "character"},
		{"a == 'x'", 5, `string "x" is no value`},
		{"a == 'x", 5, "unterminated"},
		{`a == "x\\y"`, 5, "backslash"},
		{"a if b", 6, `want "else"`},
		{"a is None", 2, `"is"`},
		{"len(a) > 1", 0, "function"},
		{"(a == 1", 7, "end of expression"},
		{"a ==", 4, "end of expression"},
		{"a b", 2, `"b"`},
		{"1x", 1, "number"},
		{"", 0, "end of expression"},
	}
	for _, tt := range tests {
		t.Run(tt.py, func(t *testing.T) {
			_, err := TranslatePython(tt.py)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *SyntaxError", err)
			}
			if se.Pos != tt.pos || !strings.Contains(se.Msg, tt.message) {
				t.Errorf("got position %d %q, want %d and a message with %q", se.Pos, se.Msg, tt.pos, tt.message)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error %v does not match ErrSyntax", err)
			}
		})
	}
}

// TestSpaceBitwiseConstraint checks that a constraint with Python's
// bitwise operators passes NewSpace's limits and counts as python3 does.
func TestSpaceBitwiseConstraint(t *testing.T) {
	var vs []int
	for v := 1; v <= 64; v++ {
		vs = append(vs, v)
	}
	for _, tc := range []struct {
		py   string
		want int
	}{
		{"(a & (a - 1)) == 0", 7},        // powers of two
		{"a >> 3 == 2 or a ^ 1 == 0", 9}, // 16..23, and 1
		{"a < 4 if a % 2 == 0 else a > 60", 3},
	} {
		c, err := TranslatePython(tc.py)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSpace([]Param{{Name: "a", Values: vs}}, []string{c})
		if err != nil {
			t.Fatalf("%s: %v", tc.py, err)
		}
		if s.Len() != tc.want {
			t.Errorf("%s: %d valid, want %d", tc.py, s.Len(), tc.want)
		}
	}
}

package collect

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseSample checks that any --sample text is refused with an error
// or read as one of its forms, and that a random form keeps its N.
func FuzzParseSample(f *testing.F) {
	for _, s := range []string{"all", "grid", "random:100", "random-each:600", "random:0", "random-each:", "random:-3", "random:1e3", "refine:3", "refine:0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := parseSample(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "collect: ") {
				t.Errorf("parseSample(%q) error %q lacks the package prefix", text, err)
			}
			return
		}
		switch {
		case s.all:
			if text != "all" {
				t.Errorf("parseSample(%q) = all", text)
			}
		case s.grid:
			if text != "grid" {
				t.Errorf("parseSample(%q) = grid", text)
			}
		default:
			prefix := "random:"
			switch {
			case s.each:
				prefix = "random-each:"
			case s.refine:
				prefix = "refine:"
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(text, prefix)); s.n < 1 || err != nil || n != s.n || !strings.HasPrefix(text, prefix) {
				t.Errorf("parseSample(%q) = %+v", text, s)
			}
		}
	})
}

// FuzzParseShard checks that ParseShard refuses or returns a shard that
// passes its own check and prints back to an equal one.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", "4/4", "-1/2", "0/0", " 1 / 2 ", "1/", "/", "x/y", "0/1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseShard(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "collect: ") {
				t.Errorf("ParseShard(%q) error %q lacks the package prefix", text, err)
			}
			return
		}
		if err := s.check(); err != nil {
			t.Errorf("ParseShard(%q) = %v, which fails its check: %v", text, s, err)
		}
		again, err := ParseShard(s.String())
		if err != nil || again != s {
			t.Errorf("ParseShard(%q) = %v; printed and read again: %v, %v", text, s, again, err)
		}
	})
}

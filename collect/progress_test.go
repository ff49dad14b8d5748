package collect

import (
	"bytes"
	"strings"
	"testing"
)

// TestProgressLines checks that progress into a log (not a terminal) is a
// line every logEvery, and nothing between.
func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 100, "conv2d")
	p.add(10)
	if buf.Len() != 0 {
		t.Fatalf("a line before %v: %q", logEvery, buf.String())
	}
	p.last = p.last.Add(-logEvery) // as if logEvery had passed
	p.start = p.start.Add(-logEvery)
	p.add(15)
	got := buf.String()
	if !strings.HasPrefix(got, "collect conv2d: 25 of 100 (25%), 10s, about 30s left") || strings.Count(got, "\n") != 1 {
		t.Errorf("progress line %q", got)
	}
	var none *progress
	none.add(1) // a nil progress counts nothing and writes nothing
	none.finish()
}

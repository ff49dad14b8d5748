package lightgbm

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// chain is a model of trees trees, each a chain of leaves leaves: every
// split's right child is a leaf and its left the next split, the deepest
// a tree of that many leaves can be.
func chain(trees, leaves int) string {
	var b strings.Builder
	b.WriteString("tree\nversion=v3\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=0\nobjective=regression\nfeature_names=x\nfeature_infos=[0:1]\n\n")
	var t strings.Builder
	nodes := leaves - 1
	list := func(key string, n int, f func(i int) string) {
		t.WriteString(key + "=")
		for i := 0; i < n; i++ {
			if i > 0 {
				t.WriteByte(' ')
			}
			t.WriteString(f(i))
		}
		t.WriteByte('\n')
	}
	fmt.Fprintf(&t, "num_leaves=%d\nnum_cat=0\n", leaves)
	list("split_feature", nodes, func(int) string { return "0" })
	list("threshold", nodes, func(i int) string { return fmt.Sprint(float64(i) / float64(leaves)) })
	list("decision_type", nodes, func(int) string { return "2" })
	list("left_child", nodes, func(i int) string {
		if i == nodes-1 {
			return fmt.Sprint(^int32(i + 1))
		}
		return fmt.Sprint(i + 1)
	})
	list("right_child", nodes, func(i int) string { return fmt.Sprint(^int32(i)) })
	list("leaf_value", leaves, func(int) string { return "0.001" })
	body := t.String()
	for i := 0; i < trees; i++ {
		fmt.Fprintf(&b, "Tree=%d\n%s\n", i, body)
	}
	b.WriteString("end of trees\n")
	return b.String()
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name          string
		trees, leaves int
		want          string // "" to load
	}{
		{"chain at the depth limit", 2, MaxDepth + 1, ""},
		{"chain over the depth limit", 1, MaxDepth + 2, "splits deep"},
		{"trees at the limit", MaxTrees, 2, ""},
		{"trees over the limit", MaxTrees + 1, 2, "more than 10000 trees"},
		{"too many leaves", 1, MaxLeaves + 1, "num_leaves 65537"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := chain(tt.trees, tt.leaves)
			start := time.Now()
			_, err := Parse(text)
			took := time.Since(start)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Parse: %v, want a model", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Parse: err = %v, want one saying %q", err, tt.want)
			}
			t.Logf("%d bytes, %v", len(text), took)
		})
	}
}

// TestMaxNodes: the trees' nodes together are bounded (checkTrees, which
// both Parse and Write apply).
func TestMaxNodes(t *testing.T) {
	m := &Model{NumTreePerIteration: 1, Trees: make([]Tree, MaxNodes/(2*4096-1)+1)}
	for i := range m.Trees {
		m.Trees[i].NumLeaves = 4096
	}
	if msg := m.checkTrees(); !strings.Contains(msg, "nodes, at most") {
		t.Errorf("checkTrees = %q, want the node limit", msg)
	}
	m.Trees = m.Trees[:len(m.Trees)-1]
	if msg := m.checkTrees(); msg != "" {
		t.Errorf("checkTrees under the limit = %q", msg)
	}
}

func TestTargetRange(t *testing.T) {
	m, err := Parse(small)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := m.TargetRange(); ok {
		t.Fatal("small has a target range")
	}
	x := []float64{9, 1, 0}
	raw := m.Predict(x)
	if v, clamped := m.PredictClamped(x); v != raw || clamped {
		t.Errorf("without a range: PredictClamped = %g, %v; want %g, false", v, clamped, raw)
	}
	if err := m.SetTargetRange(-0.5, 0.5); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi, ok := back.TargetRange(); !ok || lo != -0.5 || hi != 0.5 {
		t.Errorf("TargetRange after a round trip = %g, %g, %v", lo, hi, ok)
	}
	tests := []struct {
		in, want float64
		clamped  bool
	}{{-3, -0.5, true}, {0.25, 0.25, false}, {math.Exp(99), 0.5, true}, {0.5, 0.5, false}}
	for _, tt := range tests {
		if got, c := back.Clamp(tt.in); got != tt.want || c != tt.clamped {
			t.Errorf("Clamp(%g) = %g, %v; want %g, %v", tt.in, got, c, tt.want, tt.clamped)
		}
	}
	for _, bad := range [][2]float64{{1, 0}, {math.Inf(-1), 0}, {math.NaN(), 1}} {
		if err := m.SetTargetRange(bad[0], bad[1]); err == nil {
			t.Errorf("SetTargetRange(%g, %g) succeeded", bad[0], bad[1])
		}
	}
	text := strings.Replace(b.String(), "[augur_target_range: -0.5 0.5]", "[augur_target_range: 1 nope]", 1)
	if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), ParamTargetRange) {
		t.Errorf("Parse of a bad range: err = %v", err)
	}
}

// balanced is a model of trees complete binary trees of leaves leaves (a
// power of two), in heap order.
func balanced(trees, leaves int) string {
	text := chain(1, 2)
	head := text[:strings.Index(text, "Tree=0")]
	var t strings.Builder
	nodes := leaves - 1
	list := func(key string, n int, f func(i int) int) {
		t.WriteString(key + "=")
		for i := 0; i < n; i++ {
			if i > 0 {
				t.WriteByte(' ')
			}
			fmt.Fprint(&t, f(i))
		}
		t.WriteByte('\n')
	}
	child := func(c int) int {
		if c < nodes {
			return c
		}
		return ^(c - nodes)
	}
	fmt.Fprintf(&t, "num_leaves=%d\nnum_cat=0\n", leaves)
	list("split_feature", nodes, func(int) int { return 0 })
	list("threshold", nodes, func(i int) int { return i })
	list("decision_type", nodes, func(int) int { return 2 })
	list("left_child", nodes, func(i int) int { return child(2*i + 1) })
	list("right_child", nodes, func(i int) int { return child(2*i + 2) })
	list("leaf_value", leaves, func(int) int { return 1 })
	var b strings.Builder
	b.WriteString(head)
	for i := 0; i < trees; i++ {
		fmt.Fprintf(&b, "Tree=%d\n%s\n", i, t.String())
	}
	b.WriteString("end of trees\n")
	return b.String()
}

// TestNodesAtTheLimit loads a model of nearly MaxNodes nodes, and refuses
// one tree more while reading, before the trees are checked as a whole.
func TestNodesAtTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 MB model")
	}
	n := MaxNodes / (2*2048 - 1)
	text := balanced(n, 2048)
	start := time.Now()
	if _, err := Parse(text); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d trees of 2048 leaves, %d nodes, %d bytes: Parse took %v", n, n*4095, len(text), time.Since(start))
	if _, err := Parse(balanced(n+1, 2048)); err == nil || !strings.Contains(err.Error(), "nodes, at most") {
		t.Errorf("Parse of %d trees: err = %v, want the node limit", n+1, err)
	}
}

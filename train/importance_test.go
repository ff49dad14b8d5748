package train

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestImportances(t *testing.T) {
	// y depends mostly on c, a little on a, and not at all on b.
	rng := rand.New(rand.NewPCG(3, 3))
	const n, nf = 3000, 3
	x, y := make([]float64, 0, n*nf), make([]float64, 0, n)
	for range n {
		a, b, c := rng.Float64(), rng.Float64(), rng.Float64()
		x = append(x, a, b, c)
		y = append(y, 5*c+0.5*a+0.05*rng.NormFloat64())
	}
	names := []string{"a", "b", "c"}
	for _, l := range []struct {
		name    string
		learner Learner
	}{
		{"gbrt", GBRTOptions{Seed: 1}},
		{"forest", ForestOptions{Trees: 30, ColSample: 1, Seed: 1}},
	} {
		m, err := l.learner.Fit(x, nf, y)
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		if err := m.WriteLightGBM(&text, names); err != nil {
			t.Fatal(err)
		}
		imp, err := Importances(text.String())
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		var gain float64
		splits := 0
		for _, im := range imp {
			order = append(order, im.Feature)
			gain += im.Gain
			splits += im.Splits
		}
		if got := strings.Join(order, " "); !strings.HasPrefix(got, "c a") {
			t.Errorf("%s: features by gain %q, want c then a first", l.name, got)
		}
		if !(imp[0].Gain > 0.8*gain) {
			t.Errorf("%s: c has %.1f of %.1f gain, want over 80%%", l.name, imp[0].Gain, gain)
		}
		// The gains and splits are exactly those of the fitted trees.
		var trees []tree
		switch m := m.(type) {
		case *Ensemble:
			trees = m.trees
		case *Forest:
			trees = m.trees
		}
		var wantGain float64
		wantSplits := 0
		for _, tr := range trees {
			wantSplits += len(tr.feature)
			for _, g := range tr.gain {
				wantGain += g
			}
		}
		if splits != wantSplits || math.Abs(gain-wantGain) > 1e-9*wantGain {
			t.Errorf("%s: importances sum to %d splits and %v gain, trees have %d and %v", l.name, splits, gain, wantSplits, wantGain)
		}
	}
}

func TestImportancesErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"no names", "tree\nversion=v3\n", "feature_names"},
		{"bad feature", "feature_names=a b\nTree=0\nsplit_feature=2\nsplit_gain=1\n", "split feature"},
		{"short gains", "feature_names=a b\nTree=0\nsplit_feature=0 1\nsplit_gain=1\n", "1 split gains for 2 splits"},
		{"bad gain", "feature_names=a b\nTree=0\nsplit_feature=0\nsplit_gain=x\n", "split gain"},
	}
	for _, tt := range tests {
		if _, err := Importances(tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tt.name, err, tt.want)
		}
	}
}

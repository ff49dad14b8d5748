package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/predict/lightgbm"
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
		fitted, err := modelOf(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		var wantGain float64
		wantSplits := 0
		for _, tr := range fitted.Trees {
			wantSplits += len(tr.SplitFeature)
			for _, g := range tr.SplitGain {
				wantGain += g
			}
		}
		if splits != wantSplits || math.Abs(gain-wantGain) > 1e-9*wantGain {
			t.Errorf("%s: importances sum to %d splits and %v gain, trees have %d and %v", l.name, splits, gain, wantSplits, wantGain)
		}
	}
}

func TestImportancesErrors(t *testing.T) {
	x, y := synthetic(200, 3, 5)
	e, err := FitGBRT(x, 3, y, GBRTOptions{Trees: 2, MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := e.WriteLightGBM(&b, []string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	// replace changes the first line that starts with prefix to line.
	replace := func(prefix, line string) string {
		lines := strings.Split(good, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				lines[i] = line
				break
			}
		}
		return strings.Join(lines, "\n")
	}
	tests := []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty", "", 1, "empty"},
		{"no names", replace("feature_names=", ""), 8, "no feature_names"},
		{"bad feature", replace("split_feature=", "split_feature=3 0 1"), 15, "split_feature[0] is 3"},
		{"short gains", replace("split_gain=", "split_gain=1"), 16, "1 values in split_gain, want 3"},
		{"bad gain", replace("split_gain=", "split_gain=x 1 1"), 16, `"x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Importances(tt.text)
			var se *lightgbm.SyntaxError
			if !errors.As(err, &se) || se.Line != tt.line || !strings.Contains(se.Msg, tt.want) {
				t.Errorf("err = %v, want a lightgbm.SyntaxError on line %d mentioning %q", err, tt.line, tt.want)
			}
		})
	}
}

package runtime_test

import (
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestFixedPick: a model carrying a fixed configuration (features.Model.Fixed)
// serves it at every new shape, with its held-out figures and the model's
// prediction, first among the candidates; a shape the bundle measured
// answers from its table; a bundle without it searches the model.
func TestFixedPick(t *testing.T) {
	var fixed, measured features.Config
	var at features.Task
	data := rebundle(t, func(b *features.Bundle) {
		fixed = b.Models[0].Known[len(b.Models[0].Known)-1].Clone()
		b.Models[0].Fixed = &features.FixedPick{Config: fixed, PctGeomean: 96.5, PctWorst: 90.5, ModelPctGeomean: 94}
		measured, at = b.Reference, features.Task{800, 600, 7, 7}
		b.Measured = []features.MeasuredBest{{Device: poclSlug, Task: at, Config: measured, TimeNs: 1}}
	})
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shape := features.Task{1913, 1077, 5, 5}
	p, err := ch.ChoosePick(shape)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Config.Equal(fixed) || p.Source != runtime.SourceFixed || p.ExpectedPct != 96.5 || p.WorstPct != 90.5 {
		t.Errorf("pick %v from %q, expected %g%% (worst %g%%); want the fixed %v from %q at 96.5%% (90.5%%)",
			p.Config, p.Source, p.ExpectedPct, p.WorstPct, fixed, runtime.SourceFixed)
	}
	pred, _ := ch.Predict(shape, fixed)
	ref, _ := ch.Predict(shape, ch.Reference())
	if p.LogSpeedup != pred-ref {
		t.Errorf("LogSpeedup %g, want the model's prediction less the reference's, %g", p.LogSpeedup, pred-ref)
	}
	cands, err := ch.Candidates(shape, 3)
	if err != nil || len(cands) != 3 || !cands[0].Config.Equal(fixed) || cands[1].Config.Equal(fixed) {
		t.Errorf("candidates %v (%v): want the fixed configuration first, then others", cands, err)
	}
	if p, err := ch.ChoosePick(at); err != nil || p.Source != runtime.SourceTable || !p.Config.Equal(measured) {
		t.Errorf("a measured shape: %v from %q (%v), want the table's %v", p.Config, p.Source, err, measured)
	}
	plain := load(t, runtime.Options{})
	if p, err := plain.ChoosePick(shape); err != nil || p.Source == runtime.SourceFixed {
		t.Errorf("a bundle without a fixed configuration picked from %q (%v)", p.Source, err)
	}
}

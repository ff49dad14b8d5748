package runtime

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// PickReport is a Pick as `augur choose --json` prints it: the
// configuration by parameter name and the predicted speedup itself rather
// than its logarithm.
type PickReport struct {
	// Config holds each parameter's value: an int, or a kernel spec's
	// string parameter's text and float parameter's float64
	// (datasets.Kernel.NamedConfig).
	Config           map[string]any `json:"config"`
	PredictedSpeedup float64        `json:"predicted_speedup"`
	Source           string         `json:"source"`
	OutsideOctaves   float64        `json:"outside_octaves"`
	ExpectedPct      float64        `json:"expected_pct,omitempty"`
	// ChooseNs is how long the choice took, in nanoseconds.
	ChooseNs int64  `json:"choose_ns"`
	Fixed    string `json:"fixed,omitempty"`
	// Clamped is Pick.Clamped: the prediction lay outside the model's
	// training range and predicted_speedup is the range's end.
	Clamped bool `json:"clamped,omitempty"`
	// MeasuredNs and RefMeasuredNs are Pick's: a wisdom pick's recorded
	// time and the reference's beside it.
	MeasuredNs    float64 `json:"measured_ns,omitempty"`
	RefMeasuredNs float64 `json:"ref_measured_ns,omitempty"`
}

// Report returns p as a PickReport; took is how long Choose took.
func (p Pick) Report(took time.Duration) PickReport {
	var named map[string]any
	if p.kernel != nil {
		named = p.kernel.NamedConfig(p.Config)
	} else {
		named = make(map[string]any, len(p.names))
		for i, n := range p.names {
			named[n] = p.Config[i]
		}
	}
	return PickReport{named, math.Exp(p.LogSpeedup), p.Source, p.OutsideOctaves, p.ExpectedPct, took.Nanoseconds(), p.Fixed, p.Clamped,
		p.MeasuredNs, p.RefMeasuredNs}
}

// WritePick writes p, a pick of c, as `augur choose` prints it: the
// configuration, its predicted speedup over c's reference, the source,
// what the classifier fixed, the quality expected of the model, a warning
// when the prediction was clamped (Pick.Clamped), one when the shape lies
// outside the training shapes, the launch plan and
// took, how long Choose took.
func (c *Chooser) WritePick(w io.Writer, p Pick, took time.Duration) error {
	fmt.Fprintf(w, "config:            %s\n", c.Format(p.Config))
	// A pick measured rather than predicted (a nearby shape's best) may
	// come with no prediction: none is printed rather than 1x.
	if p.LogSpeedup != 0 || p.Config.Equal(c.Reference()) || p.Source != SourceNear {
		fmt.Fprintf(w, "predicted speedup: %.3fx over the reference (%s)\n", math.Exp(p.LogSpeedup), c.Format(c.Reference()))
	}
	if p.MeasuredNs > 0 {
		fmt.Fprintf(w, "measured:          %.4f ms (the wisdom's fastest record)", p.MeasuredNs/1e6)
		if p.RefMeasuredNs > 0 {
			fmt.Fprintf(w, ", %.3fx over the reference's %.4f ms there", p.RefMeasuredNs/p.MeasuredNs, p.RefMeasuredNs/1e6)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "source:            %s\n", p.Source)
	if p.Fixed != "" {
		fmt.Fprintf(w, "classifier fixed:  %s\n", p.Fixed)
	}
	switch {
	case p.ExpectedPct > 0 && p.WorstPct > 0:
		fmt.Fprintf(w, "expected:          %.1f%% of the optimum (worst held-out shape %.1f%%)\n", p.ExpectedPct, p.WorstPct)
	case p.ExpectedPct > 0:
		// A figure recorded without its worst shape (a copy of another
		// device's best; one device's evidence for new shapes).
		fmt.Fprintf(w, "expected:          %.1f%% of the optimum\n", p.ExpectedPct)
	}
	if p.Clamped {
		fmt.Fprintf(w, "warning:           the model's prediction lies outside the speedups of its training data and was clamped to them; it extrapolates or is damaged\n")
	}
	if p.OutsideOctaves > 0 && (p.Source == SourceFleet || strings.HasPrefix(p.Source, "model:")) {
		fmt.Fprintf(w, "warning:           the shape lies %.1f octaves outside the training shapes; the model extrapolates\n", p.OutsideOctaves)
	}
	if p.Plan.BuildOptions != "" {
		fmt.Fprintf(w, "build options:     %s\n", p.Plan.BuildOptions)
		fmt.Fprintf(w, "global, local:     %v, %v\n", p.Plan.Global[:p.Plan.Dims], p.Plan.Local[:p.Plan.Dims])
	}
	_, err := fmt.Fprintf(w, "choose took:       %s\n", took)
	return err
}

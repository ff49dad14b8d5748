package tune

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TopOptions configure TuneTop. Zero values mean the documented defaults.
type TopOptions struct {
	// Device is the OpenCL device index.
	Device int
	// K is how many of the runtime's candidates are measured; 0 means 3.
	K int
	// Repeats is the number of timed runs per configuration; 0 means 5.
	Repeats int
	// Wisdom is the wisdom file (runtime.Wisdom) the measurements are
	// appended to, for the bundle's kernel version and the device's slug;
	// required.
	Wisdom string
	// Progress receives a line per step and the wisdom file's warnings;
	// nil means quiet.
	Progress io.Writer
}

// TopCandidate is one measured candidate of TuneTop.
type TopCandidate struct {
	Config features.Config
	// Source is the candidate's Pick.Source; Status the measurement's.
	Source string
	Status record.Status
	TimeNs float64 // 0 unless Status is ok
}

// TopResult is what TuneTop measured and recorded.
type TopResult struct {
	Task         features.Task
	PlatformSlug string
	Candidates   []TopCandidate
	// Best is the fastest configuration measured, BestNs its time: a
	// candidate, or the reference configuration when none of the
	// candidates beat it (BestIsReference), as a Chooser given the wisdom
	// file answers. RefNs is the reference's time, measured with them.
	Best            features.Config
	BestNs, RefNs   float64
	BestIsReference bool
	// Recorded counts the records appended to the wisdom file (the
	// candidates that ran and the reference).
	Recorded int
	Space    *features.Space
	// Kernel is the kernel tuned (TuneResult.Kernel).
	Kernel *datasets.Kernel
}

// TuneTop measures the first K candidates (runtime.Chooser.Candidates) of
// bundle b's model for the device on shape t, once each, and appends every
// one that ran, with the reference configuration, to the wisdom file: a
// Chooser given that file answers t with the fastest from then on, which
// TopResult.Best names (the reference when no candidate beat it).
func TuneTop(ctx context.Context, k *datasets.Kernel, b *features.Bundle, t features.Task, opt TopOptions) (*TopResult, error) {
	if opt.K == 0 {
		opt.K = 3
	}
	switch {
	case opt.K < 0:
		return nil, fmt.Errorf("tune: TopOptions.K must be >= 1, got %d", opt.K)
	case opt.Wisdom == "":
		return nil, errors.New("tune: TopOptions.Wisdom is empty")
	case b.Kernel != k.Name:
		return nil, fmt.Errorf("tune: the bundle is of kernel %s, not %s", b.Kernel, k.Name)
	}
	if err := k.CheckTask(t); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	devs, err := collect.ListDevices()
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if opt.Device < 0 || opt.Device >= len(devs) {
		return nil, fmt.Errorf("tune: no device %d: the OpenCL devices are 0 to %d (augur devices lists them)", opt.Device, len(devs)-1)
	}
	plat := devs[opt.Device]
	ch, err := runtime.FromBundle(b, runtime.Options{Platform: &plat})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if ch.Source() == runtime.SourceReference {
		return nil, fmt.Errorf("tune: the bundle has no model for %s and no fleet model", plat.Slug())
	}
	if m := ch.OtherDevice(); m != "" {
		// As augur choose warns: the candidates are another device's.
		say(opt.Progress, "tune: warning: the bundle has no model of %s; its model of %s ranks the candidates, learnt on that device", plat.Slug(), m)
	}
	cands, err := ch.Candidates(t, opt.K)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	w, err := runtime.OpenWisdom(opt.Wisdom, runtime.WisdomOptions{KernelVersion: b.KernelVersion, Device: plat.Slug(), Warn: opt.Progress})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	defer w.Close()
	configs := make([]features.Config, len(cands))
	for i, c := range cands {
		configs[i] = c.Config
	}
	say(opt.Progress, "tune: measuring the top %d candidates of %s on %s", len(configs), ch.Source(), plat.Slug())
	res := &TopResult{Task: t, PlatformSlug: plat.Slug(), Space: k.Space, Kernel: k}
	// In batches, each recorded as soon as it is measured: an interrupt
	// keeps every batch done, and a line a batch tells how far it got.
	var interrupted error
	for start := 0; start < len(configs); start += topBatch {
		end := min(start+topBatch, len(configs))
		rows, err := collect.Measure(ctx, k, t, configs[start:end], collect.Options{Device: opt.Device, Repeats: opt.Repeats})
		if err != nil && ctx.Err() != nil && start > 0 {
			interrupted = fmt.Errorf("%w after %d of %d candidates (%v): the best so far is above, and in the wisdom", ErrInterrupted, start, len(configs), context.Cause(ctx))
			break
		}
		if err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
		for i, r := range rows {
			c := TopCandidate{Config: r.Config, Status: r.Status, Source: cands[start+i].Source}
			if res.RefNs == 0 && r.RefTimeNs > 0 {
				// The first batch's timing: the least of one a batch
				// would be a luckier draw than any candidate's one.
				res.RefNs = r.RefTimeNs
			}
			if r.Status == record.StatusOK && r.TimeNs > 0 {
				c.TimeNs = r.TimeNs
				if err := w.Record(t, r.Config, r.TimeNs); err != nil {
					return nil, fmt.Errorf("tune: %w", err)
				}
				res.Recorded++
				if res.Best == nil || r.TimeNs < res.BestNs {
					res.Best, res.BestNs = r.Config, r.TimeNs
				}
			}
			res.Candidates = append(res.Candidates, c)
		}
		if len(configs) > topBatch {
			say(opt.Progress, "tune: measured %d of %d candidates", end, len(configs))
		}
	}
	// The reference, timed beside the candidates, is recorded too, unless
	// it is a candidate and so recorded above.
	refIsCandidate := slices.ContainsFunc(configs, func(c features.Config) bool { return c.Equal(k.Reference) })
	if res.RefNs > 0 && !refIsCandidate {
		if err := w.Record(t, k.Reference, res.RefNs); err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
		res.Recorded++
	}
	if res.Best == nil {
		return res, errors.Join(interrupted, fmt.Errorf("tune: none of the %d candidates ran on %s", len(res.Candidates), plat.Slug()))
	}
	res.preferReference(k.Reference)
	return res, errors.Join(w.Close(), interrupted)
}

// topBatch is how many candidates TuneTop measures in one device session
// (each times the reference beside them, as the two-stage tuner's do).
const topBatch = 16

// preferReference makes ref, the reference configuration, the best when
// it was measured faster than every candidate that ran: it is in the
// wisdom too, and the answer is never slower than what was measured.
func (r *TopResult) preferReference(ref features.Config) {
	if r.Best != nil && r.RefNs > 0 && r.RefNs < r.BestNs {
		r.Best, r.BestNs, r.BestIsReference = ref.Clone(), r.RefNs, true
	}
}

func say(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// String writes the result for a person: each candidate's time and the
// winner's speedup over the reference.
func (r *TopResult) String() string {
	var b strings.Builder
	for i, c := range r.Candidates {
		t := string(c.Status)
		if c.Status == record.StatusOK {
			t = fmt.Sprintf("%.4f ms", c.TimeNs/1e6)
		}
		fmt.Fprintf(&b, "%d. %s  %s  (%s)\n", i+1, formatConfig(r.Kernel, r.Space, c.Config), t, c.Source)
	}
	if r.Best != nil {
		fmt.Fprintf(&b, "best: %s  %.4f ms", formatConfig(r.Kernel, r.Space, r.Best), r.BestNs/1e6)
		switch {
		case r.BestIsReference:
			fmt.Fprintf(&b, ", the reference: none of the %d candidates beat it", len(r.Candidates))
		case r.RefNs > 0:
			fmt.Fprintf(&b, ", %.2fx over the reference (%.4f ms)", r.RefNs/r.BestNs, r.RefNs/1e6)
		}
		fmt.Fprintf(&b, "; %d records written to the wisdom", r.Recorded)
	}
	return b.String()
}

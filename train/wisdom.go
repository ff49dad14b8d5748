package train

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/augur-tuning/augur/features"
)

// WisdomReport counts what AddWisdom did with a wisdom file's records.
type WisdomReport struct {
	// Added records became ok rows of the data.
	Added int
	// Damaged lines did not parse (features.ParseWisdomLine).
	Damaged int
	// OtherVersion records are of another kernel version than the data's.
	OtherVersion int
	// UnknownDevice records name no device of the data (or none, where
	// the data has several devices).
	UnknownDevice int
	// Invalid records have a shape or configuration the kernel's space
	// does not take.
	Invalid int
	// NoReference records have no reference time for their shape: no
	// wisdom record of the reference configuration and no row of the data
	// on the shape.
	NoReference int
}

// String says what was added and what skipped, for 'augur train'.
func (r WisdomReport) String() string {
	return fmt.Sprintf("wisdom: %d records added; skipped %d damaged lines, %d of another kernel version, %d of unknown devices, %d outside the space, %d without a reference time of their shape",
		r.Added, r.Damaged, r.OtherVersion, r.UnknownDevice, r.Invalid, r.NoReference)
}

// ReadWisdomFile reads the records of a wisdom file (runtime.Wisdom's
// JSON lines); damaged lines are skipped and counted.
func ReadWisdomFile(path string) ([]features.WisdomRecord, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("train: wisdom: %w", err)
	}
	var out []features.WisdomRecord
	damaged := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r, err := features.ParseWisdomLine(sc.Bytes())
		if err != nil {
			damaged++
			continue
		}
		out = append(out, r)
	}
	return out, damaged, nil
}

// AddWisdom adds measured records of a wisdom file to d as ok rows, with
// the log-speedup over the reference time of the record's shape on its
// device: a record of the reference configuration of that shape in recs
// (the fastest, if several), else the data's reference time of the shape,
// else the record is skipped (WisdomReport.NoReference). A record's device
// is matched to d's devices by slug or name; a record without one belongs
// to the data's only device. A (device, shape, configuration) measured
// several times keeps its fastest record.
func (d *Data) AddWisdom(recs []features.WisdomRecord) (WisdomReport, error) {
	var rep WisdomReport
	space, err := features.NewSpace(d.Params, d.Constraints)
	if err != nil {
		return rep, fmt.Errorf("train: %w", err)
	}
	platform := func(dev string) int {
		if dev == "" {
			if len(d.Platforms) == 1 {
				return 0
			}
			return -1
		}
		for i, p := range d.Platforms {
			if strings.EqualFold(p.Slug(), dev) || strings.EqualFold(p.Name, dev) {
				return i
			}
		}
		return -1
	}
	type key struct {
		p   int
		t   features.TaskKey
		cfg int // Space.Index
	}
	type shapeKey struct {
		p int
		t features.TaskKey
	}
	refs := map[shapeKey]float64{}
	for _, s := range d.Samples() {
		if s.RefTimeNs > 0 {
			refs[shapeKey{s.Platform, s.Task.Key()}] = s.RefTimeNs
		}
	}
	fastest := map[key]features.WisdomRecord{}
	var order []key
	wisdomRefs := map[shapeKey]float64{}
	for _, r := range recs {
		pi := platform(r.Device)
		switch {
		case r.KernelVersion != d.KernelVersion:
			rep.OtherVersion++
			continue
		case pi < 0:
			rep.UnknownDevice++
			continue
		case len(r.Shape) != len(d.TaskNames) || !space.Valid(r.Config):
			rep.Invalid++
			continue
		}
		k := key{pi, r.Shape.Key(), space.Index(r.Config)}
		if old, ok := fastest[k]; !ok || r.TimeNs < old.TimeNs {
			if !ok {
				order = append(order, k)
			}
			fastest[k] = r
		}
		if r.Config.Equal(d.Reference) {
			sk := shapeKey{pi, r.Shape.Key()}
			if old, ok := wisdomRefs[sk]; !ok || r.TimeNs < old {
				wisdomRefs[sk] = r.TimeNs
			}
		}
	}
	enc := d.Encoder()
	x := make([]float64, len(d.Features))
	pvs := make([][]float64, len(d.Platforms))
	for i, p := range d.Platforms {
		pvs[i] = p.Vector()
	}
	for _, k := range order {
		r := fastest[k]
		sk := shapeKey{k.p, k.t}
		ref, ok := wisdomRefs[sk]
		if !ok {
			ref, ok = refs[sk]
		}
		if !ok {
			rep.NoReference++
			continue
		}
		enc.Encode(x, r.Shape, r.Config, pvs[k.p])
		if err := d.Append(x, math.Log(ref/r.TimeNs), Sample{Task: r.Shape, Config: r.Config, Platform: k.p, TimeNs: r.TimeNs, RefTimeNs: ref}); err != nil {
			return rep, err
		}
		rep.Added++
	}
	return rep, nil
}

package features

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// WisdomRecord is one measurement kept in a wisdom file (runtime.Wisdom):
// configuration Config of the kernel version KernelVersion ran shape
// Shape on device Device in TimeNs nanoseconds. The wisdom file is JSON
// lines, one record a line, as AppendWisdomLine writes it:
//
//	{"kernel_version":"5f1c…","device":"nvidia-h200","shape":[1024,768,5,5],"config":[8,8,1,1,0,1,0,0],"time_ns":41230.5}
//
// Shape holds the kernel's task features and Config its parameters, in
// the bundle's order (Bundle.TaskNames, Bundle.Params). The format is
// shared by the runtime, which writes and consults it, and train, which
// learns from it; this package owns its reader and writer.
type WisdomRecord struct {
	KernelVersion string  `json:"kernel_version"`
	Device        string  `json:"device,omitempty"`
	Shape         Task    `json:"shape"`
	Config        Config  `json:"config"`
	TimeNs        float64 `json:"time_ns"`
}

// Check reports whether r is a record a wisdom file may hold: a kernel
// version, a shape of 1 to MaxTaskLen values, a configuration and a
// positive, finite time.
func (r WisdomRecord) Check() error {
	switch {
	case r.KernelVersion == "":
		return fmt.Errorf("%w: wisdom record without kernel_version", ErrSyntax)
	case len(r.Shape) == 0 || len(r.Shape) > MaxTaskLen:
		return fmt.Errorf("%w: wisdom record shape has %d values, want 1 to %d", ErrSyntax, len(r.Shape), MaxTaskLen)
	case len(r.Config) == 0:
		return fmt.Errorf("%w: wisdom record without config", ErrSyntax)
	case !(r.TimeNs > 0) || math.IsInf(r.TimeNs, 0):
		return fmt.Errorf("%w: wisdom record time_ns must be > 0 and finite, got %g", ErrSyntax, r.TimeNs)
	}
	return nil
}

// ParseWisdomLine reads one line of a wisdom file (without or with its
// newline). A line that is not one JSON object of the record's fields, or
// whose record fails Check, is an error wrapping ErrSyntax.
func ParseWisdomLine(line []byte) (WisdomRecord, error) {
	var r WisdomRecord
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return WisdomRecord{}, fmt.Errorf("%w: wisdom line: %v", ErrSyntax, err)
	}
	if dec.More() {
		return WisdomRecord{}, fmt.Errorf("%w: wisdom line: text after the record", ErrSyntax)
	}
	if err := r.Check(); err != nil {
		return WisdomRecord{}, err
	}
	return r, nil
}

// AppendWisdomLine appends r as one line of a wisdom file, newline
// included, to dst; r must pass Check.
func AppendWisdomLine(dst []byte, r WisdomRecord) ([]byte, error) {
	if err := r.Check(); err != nil {
		return dst, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return dst, fmt.Errorf("features: wisdom record: %w", err)
	}
	return append(append(dst, b...), '\n'), nil
}

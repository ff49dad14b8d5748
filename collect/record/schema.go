package record

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/augur-tuning/augur/features"
)

// Meta describes one dataset file: which kernel ran, on which device, and
// the space its rows come from. It is stored in the Arrow schema metadata.
type Meta struct {
	Kernel string
	// KernelVersion is datasets.Kernel.Version: rows of different versions
	// must never be mixed.
	KernelVersion string
	Platform      features.Platform
	// AugurVersion is the features.Version that wrote the file.
	AugurVersion string
	Created      time.Time
	TaskNames    []string
	Params       []features.Param
	Constraints  []string
	// Reference is the configuration log_speedup is measured against.
	Reference features.Config
	// Source says where the rows came from: "collect", or
	// "import:kerneltuner" and the like for converted data.
	Source string
	// Plan is how collect chose the rows ("sample=random:100 seed=1
	// shards=4"), so that shards of one collection can be told from rows of
	// another; "" for imported files and files written before it existed.
	// It is not covered by the metadata checksum: it informs, nothing
	// reads rows by it.
	Plan string
}

// The fixed columns that follow the task and parameter columns, in order.
const (
	colStatus     = "status"
	colTimeNs     = "time_ns"
	colTimeMinNs  = "time_min_ns"
	colTimeCV     = "time_cv"
	colRepeats    = "repeats"
	colRefTimeNs  = "ref_time_ns"
	colLogSpeedup = "log_speedup"
	colCompileMs  = "compile_ms"
	colError      = "error"
	// colTimesNs holds an ok row's timed runs in nanoseconds, in the
	// order they ran: a nullable list<int64>, null where they were not
	// kept. Files written before it existed lack the column.
	colTimesNs = "times_ns"
)

// Metadata keys of the schema.
const (
	keyKernel        = "kernel"
	keyKernelVersion = "kernel_version"
	keyPlatform      = "platform"
	keyAugurVersion  = "augur_version"
	keyDriverVersion = "driver_version"
	keyCreated       = "created"
	keyTaskNames     = "task_names"
	keyParams        = "params"
	keyConstraints   = "constraints"
	keyReference     = "reference"
	keySource        = "source"
	keyPlan          = "collect_plan"
)

// Column positions of the fixed columns, counted from the first of them.
const (
	offStatus = iota
	offTimeNs
	offTimeMinNs
	offTimeCV
	offRepeats
	offRefTimeNs
	offLogSpeedup
	offCompileMs
	offError
	offTimesNs
	numFixed
)

// schema is the one definition of the file layout: the task columns, the
// parameter columns, then the fixed columns, with meta in the metadata.
func schema(meta Meta) (*arrow.Schema, error) {
	if meta.Kernel == "" {
		return nil, fmt.Errorf("record: Meta.Kernel is empty")
	}
	if len(meta.Reference) != 0 && len(meta.Reference) != len(meta.Params) {
		return nil, fmt.Errorf("record: Meta.Reference has %d values, want %d (one per parameter) or none", len(meta.Reference), len(meta.Params))
	}
	fields := make([]arrow.Field, 0, len(meta.TaskNames)+len(meta.Params)+numFixed)
	seen := map[string]bool{}
	add := func(name string, t arrow.DataType, nullable bool) error {
		// JSON metadata would silently replace invalid UTF-8, and the
		// column would then not be found again.
		if !utf8.ValidString(name) {
			return fmt.Errorf("record: column name %q is not valid UTF-8", name)
		}
		if seen[name] {
			return fmt.Errorf("record: column %q appears twice", name)
		}
		seen[name] = true
		fields = append(fields, arrow.Field{Name: name, Type: t, Nullable: nullable})
		return nil
	}
	for _, n := range meta.TaskNames {
		if err := add("task."+n, arrow.PrimitiveTypes.Int64, false); err != nil {
			return nil, err
		}
	}
	for _, p := range meta.Params {
		if err := add("param."+p.Name, arrow.PrimitiveTypes.Int64, false); err != nil {
			return nil, err
		}
	}
	f64 := arrow.PrimitiveTypes.Float64
	for _, c := range []struct {
		name     string
		t        arrow.DataType
		nullable bool
	}{
		{colStatus, arrow.BinaryTypes.String, false},
		{colTimeNs, f64, false},
		{colTimeMinNs, f64, false},
		{colTimeCV, f64, false},
		{colRepeats, arrow.PrimitiveTypes.Int64, false},
		{colRefTimeNs, f64, false},
		{colLogSpeedup, f64, true},
		{colCompileMs, f64, false},
		{colError, arrow.BinaryTypes.String, false},
		{colTimesNs, arrow.ListOf(arrow.PrimitiveTypes.Int64), true},
	} {
		if err := add(c.name, c.t, c.nullable); err != nil {
			return nil, err
		}
	}
	md, err := encodeMeta(meta)
	if err != nil {
		return nil, err
	}
	md = withMetaHash(md)
	return arrow.NewSchema(fields, &md), nil
}

// encodeMeta lays meta out as string key-value pairs; structured values are
// JSON so that other Arrow readers can decode them too.
func encodeMeta(meta Meta) (arrow.Metadata, error) {
	js := func(v any) (string, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return "", fmt.Errorf("record: encode metadata: %w", err)
		}
		return string(b), nil
	}
	keys := []string{keyKernel, keyKernelVersion, keyAugurVersion, keyDriverVersion, keyCreated, keySource}
	vals := []string{meta.Kernel, meta.KernelVersion, meta.AugurVersion, meta.Platform.DriverVersion,
		meta.Created.Format(time.RFC3339Nano), meta.Source}
	// Empty lists are written as [] rather than null, for other readers.
	taskNames, params, constraints, ref := meta.TaskNames, meta.Params, meta.Constraints, meta.Reference
	if taskNames == nil {
		taskNames = []string{}
	}
	if params == nil {
		params = []features.Param{}
	}
	if constraints == nil {
		constraints = []string{}
	}
	if ref == nil {
		ref = features.Config{}
	}
	if meta.Plan != "" {
		keys, vals = append(keys, keyPlan), append(vals, meta.Plan)
	}
	for _, kv := range []struct {
		key string
		v   any
	}{
		{keyPlatform, meta.Platform}, {keyTaskNames, taskNames}, {keyParams, params},
		{keyConstraints, constraints}, {keyReference, ref},
	} {
		s, err := js(kv.v)
		if err != nil {
			return arrow.Metadata{}, err
		}
		keys = append(keys, kv.key)
		vals = append(vals, s)
	}
	return arrow.NewMetadata(keys, vals), nil
}

// decodeMeta is the inverse of encodeMeta.
func decodeMeta(md arrow.Metadata) (Meta, error) {
	var m Meta
	get := func(key string) (string, error) {
		v, ok := md.GetValue(key)
		if !ok {
			return "", fmt.Errorf("%w: no metadata key %q", ErrFormat, key)
		}
		return v, nil
	}
	var err error
	for _, s := range []struct {
		key string
		dst *string
	}{
		{keyKernel, &m.Kernel}, {keyKernelVersion, &m.KernelVersion},
		{keyAugurVersion, &m.AugurVersion}, {keySource, &m.Source},
	} {
		if *s.dst, err = get(s.key); err != nil {
			return Meta{}, err
		}
	}
	m.Plan, _ = md.GetValue(keyPlan) // optional
	created, err := get(keyCreated)
	if err != nil {
		return Meta{}, err
	}
	if m.Created, err = time.Parse(time.RFC3339Nano, created); err != nil {
		return Meta{}, fmt.Errorf("%w: created: %v", ErrFormat, err)
	}
	for _, j := range []struct {
		key string
		dst any
	}{
		{keyPlatform, &m.Platform}, {keyTaskNames, &m.TaskNames}, {keyParams, &m.Params},
		{keyConstraints, &m.Constraints}, {keyReference, &m.Reference},
	} {
		v, err := get(j.key)
		if err != nil {
			return Meta{}, err
		}
		if err := json.Unmarshal([]byte(v), j.dst); err != nil {
			return Meta{}, fmt.Errorf("%w: metadata %s: %v", ErrFormat, j.key, err)
		}
	}
	// Empty lists were written as []; give them back as nil, as they
	// most likely were, so that a Meta survives a round trip unchanged.
	if len(m.TaskNames) == 0 {
		m.TaskNames = nil
	}
	if len(m.Params) == 0 {
		m.Params = nil
	}
	if len(m.Constraints) == 0 {
		m.Constraints = nil
	}
	if len(m.Reference) == 0 {
		m.Reference = nil
	}
	return m, nil
}

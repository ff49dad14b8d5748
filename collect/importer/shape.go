package importer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/features"
)

// Where an input's problem size came from (FileSummary.ShapeFrom).
const (
	ShapeFromFile  = "file"  // the file's own (a Kernel Tuner cache's problem_size)
	ShapeFromGiven = "given" // Options.Shape
	ShapeFromSpec  = "spec"  // the spec's ProblemSize
)

// givenShape is Options.Shape read: the problem sizes and their names.
type givenShape struct {
	names []string
	sizes []int
}

// parseShape reads Options.Shape, "name=value,...": with the spec's names
// (spec nil, or without names: any names, in the order given), each named
// once, a size answering to problem_size_I too. nil when text is empty.
func parseShape(text string, spec *Spec) (*givenShape, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	bad := func(err error) error { return fmt.Errorf("importer: Shape (--shape) %q: %w", text, err) }
	if spec != nil && spec.ProblemSizeNames != nil {
		names := spec.ProblemSizeNames
		t, err := features.ParseTask(names, features.AliasProblemSizes(names, text))
		if err != nil {
			return nil, bad(err)
		}
		if err := positive(names, t); err != nil {
			return nil, bad(err)
		}
		return &givenShape{names: slices.Clone(names), sizes: t}, nil
	}
	g := &givenShape{}
	for i, field := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(field, "=")
		k = strings.TrimSpace(k)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil {
			return nil, bad(fmt.Errorf("%w: field %d %q is not name=integer", features.ErrSyntax, i+1, strings.TrimSpace(field)))
		}
		g.names, g.sizes = append(g.names, k), append(g.sizes, n)
	}
	if err := checkNames(g.names, -1); err != nil {
		return nil, bad(err)
	}
	if err := positive(g.names, g.sizes); err != nil {
		return nil, bad(err)
	}
	return g, nil
}

// positive refuses a size that is not positive.
func positive(names []string, sizes []int) error {
	for i, v := range sizes {
		if v <= 0 {
			return fmt.Errorf("%s=%d, want a positive size", names[i], v)
		}
	}
	return nil
}

// problemShape returns an input's problem sizes, their names and where
// they came from: the file's own problem size (which a given shape must
// agree with), else the given shape, else the spec's ProblemSize, else
// none. They are named by the spec (Spec.ProblemSizeNames), else by the
// given shape, else by problemNames.
func problemShape(res *Results, spec *Spec, given *givenShape) ([]string, []int, string, error) {
	sizes, from := res.ProblemSize, ShapeFromFile
	if given != nil && spec != nil && spec.ProblemSize != nil && len(given.sizes) != len(spec.ProblemSize) {
		return nil, nil, "", fmt.Errorf("importer: Shape (--shape) %s gives %d sizes, and the spec's ProblemSize %v has %d",
			features.FormatTask(given.names, given.sizes), len(given.sizes), spec.ProblemSize, len(spec.ProblemSize))
	}
	switch {
	case sizes != nil && given != nil && !slices.Equal(sizes, given.sizes):
		return nil, nil, "", fmt.Errorf("importer: the file's problem size is %v, and Shape (--shape) gives %s: give no shape, or the file's",
			sizes, features.FormatTask(given.names, given.sizes))
	case sizes == nil && given != nil:
		sizes, from = given.sizes, ShapeFromGiven
	case sizes == nil && spec != nil && spec.ProblemSize != nil:
		sizes, from = spec.ProblemSize, ShapeFromSpec
	case sizes == nil:
		from = ""
	}
	names := problemNames(len(sizes))
	switch {
	case spec != nil && spec.ProblemSizeNames != nil:
		// The spec's names, which train --spec reads the rows by.
		if len(spec.ProblemSizeNames) != len(sizes) {
			return nil, nil, "", fmt.Errorf("importer: the problem size %v has %d sizes, and the spec names %d (%s)",
				sizes, len(sizes), len(spec.ProblemSizeNames), strings.Join(spec.ProblemSizeNames, ","))
		}
		names = slices.Clone(spec.ProblemSizeNames)
	case given != nil:
		names = slices.Clone(given.names)
	}
	return names, slices.Clone(sizes), from, nil
}

package record

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/augur-tuning/augur/features"
)

// TaskChecker checks a shape against a kernel's task space and its
// constraints; *datasets.Kernel is one.
type TaskChecker interface {
	CheckTask(t features.Task) error
}

// VerifyOptions configure Verify. The zero value checks what the file
// itself declares.
type VerifyOptions struct {
	// Tasks, when not nil, returns the task space to check the rows'
	// shapes against for a file's metadata, or nil when the kernel is not
	// known (an imported kernel); the shapes are then left unchecked.
	Tasks func(meta Meta) TaskChecker
	// MaxProblems is how many bad rows a Check describes; the others are
	// only counted. 0 means 10.
	MaxProblems int
}

// Check is what Verify found in one dataset file.
type Check struct {
	Path string
	Meta Meta
	// Rows and Batches count the rows and record batches read.
	Rows, Batches int
	// Verified is set when the file carries checksums and they matched
	// (File.Verified); a file written before checksums existed has none.
	Verified bool
	// TasksChecked is set when the shapes were checked against the
	// kernel's task space (VerifyOptions.Tasks).
	TasksChecked bool
	// Duplicates counts the rows whose (shape, configuration) an earlier
	// row of the file has too.
	Duplicates int
	// BadRows counts the rows that fail a check; Problems describes the
	// first of them, "batch B row R: reason".
	BadRows  int
	Problems []string
	// Err is set when the file could not be read through: bytes that do
	// not decode, or a checksum that does not match. The counts then
	// cover what was read before.
	Err error
}

// OK reports whether the file read through and every row passed.
func (c *Check) OK() bool { return c.Err == nil && c.BadRows == 0 }

// String summarizes c on one line.
func (c *Check) String() string {
	state := "ok"
	switch {
	case c.Err != nil:
		state = "BAD: " + firstLine(c.Err.Error())
	case c.BadRows > 0:
		state = fmt.Sprintf("BAD: %d bad rows, first: %s", c.BadRows, c.Problems[0])
	}
	checked := "checksums ok"
	switch {
	case c.Err != nil && !c.Verified:
		checked = "not read through" // the checksums were not reached, or failed
	case !c.Verified:
		checked = "unverified (no checksums)"
	}
	return fmt.Sprintf("%s: %d rows, %d batches, %d duplicates, %d bad rows, %s: %s",
		c.Path, c.Rows, c.Batches, c.Duplicates, c.BadRows, checked, state)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Verify reads the dataset file at path through and checks everything a
// reader can: the checksums (when the file has them), every row's values
// and timed runs (as ReadFileWith with ReadOptions.Runs does), that every row but a pruned one satisfies the space's
// constraints, the shapes against the kernel's task space (opt.Tasks), and
// it counts the repeated (shape, configuration) pairs. Unlike ReadFile it
// does not stop at the first bad row, to count them all.
func Verify(path string, opt VerifyOptions) *Check {
	if opt.MaxProblems <= 0 {
		opt.MaxProblems = 10
	}
	c := &Check{Path: path}
	if strings.HasSuffix(path, ".arrow"+partialSuffix) {
		c.Err = fmt.Errorf("record: %s is the stream of a collect that was interrupted (or is running), not a dataset file: `augur recover --data DIR` makes it one", path)
		return c
	}
	var (
		space    *features.Space
		spaceErr error
		tasks    TaskChecker
		seen     = map[string]bool{}
		key      []byte
	)
	bad := func(batch, row int, err error) {
		c.BadRows++
		if len(c.Problems) < opt.MaxProblems {
			c.Problems = append(c.Problems, fmt.Sprintf("batch %d row %d: %s", batch, row, firstLine(err.Error())))
		}
	}
	meta, verified, err := scanFile(path, nil, true, func(m *Meta, batch int, rows []Row) error {
		if batch == 0 {
			c.Meta = *m
			space, spaceErr = newSpace(m)
			if opt.Tasks != nil {
				tasks = opt.Tasks(*m)
				c.TasksChecked = tasks != nil
			}
		}
		c.Batches++
		for i, r := range rows {
			c.Rows++
			key = key[:0]
			for _, v := range r.Task {
				key = fmt.Appendf(key, "%d,", v)
			}
			key = append(key, ';')
			for _, v := range r.Config {
				key = fmt.Appendf(key, "%d,", v)
			}
			if seen[string(key)] {
				c.Duplicates++
			}
			seen[string(key)] = true
			if err := checkRow(r, m.Params); err != nil {
				bad(batch, i, err)
				continue
			}
			if r.Status != StatusPruned && spaceErr == nil {
				if err := space.Check(r.Config); err != nil {
					bad(batch, i, fmt.Errorf("%w: %v", ErrInvalidRow, err))
					continue
				}
			}
			if tasks != nil {
				if err := tasks.CheckTask(r.Task); err != nil {
					bad(batch, i, fmt.Errorf("%w: shape %v: %v", ErrInvalidRow, r.Task, err))
				}
			}
		}
		return nil
	})
	if err == nil && spaceErr != nil {
		err = fmt.Errorf("record: %s: %w: space: %w", path, ErrCorrupt, spaceErr)
	}
	c.Err, c.Verified = err, verified
	if err == nil {
		c.Meta = meta
	}
	return c
}

// newSpace builds the space a file's metadata declares, within the
// limits of features.CheckSpaceLimits.
func newSpace(m *Meta) (*features.Space, error) {
	if err := features.CheckSpaceLimits(m.Params, m.Constraints); err != nil {
		return nil, err
	}
	return features.NewSpace(m.Params, m.Constraints)
}

// Misplaced returns the checks of files that lie in a family directory
// named after another kernel (DIR/NAME/DEVICE/FILE.arrow holding a kernel
// other than NAME) where some other checked file holds kernel NAME: train,
// eval and export read a family's files from that directory and refuse
// them. The rest of a file's checks cannot see this; one alone, or a
// directory not laid out by family, has nothing to compare with.
func Misplaced(checks []*Check) []*Check {
	held := map[string]bool{}
	for _, c := range checks {
		if c.Meta.Kernel != "" {
			held[c.Meta.Kernel] = true
		}
	}
	var out []*Check
	for _, c := range checks {
		family := filepath.Base(filepath.Dir(filepath.Dir(c.Path)))
		if c.Meta.Kernel != "" && c.Meta.Kernel != family && held[family] {
			out = append(out, c)
		}
	}
	return out
}

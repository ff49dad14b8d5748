package record

import (
	"fmt"

	"github.com/augur-tuning/augur/features"
)

// rowChecker checks a file's rows against what its metadata declares (each
// parameter's values and, but for pruned rows, the space's constraints)
// and, when it has one, against the kernel's task space: what every reader
// checks on every row, so that a flipped bit or a hand-edited file that
// moves a row out of its space is refused where it is read, naming the
// file, the batch and the row, instead of training a model on it.
type rowChecker struct {
	params []features.Param
	space  *features.Space
	tasks  TaskChecker // nil: shapes unchecked
}

// newRowChecker builds the checker of a file with metadata m; tasks may
// be nil.
func newRowChecker(m *Meta, tasks TaskChecker) (*rowChecker, error) {
	space, err := newSpace(m)
	if err != nil {
		return nil, fmt.Errorf("%w: space: %w", ErrCorrupt, err)
	}
	return &rowChecker{params: m.Params, space: space, tasks: tasks}, nil
}

// check returns an error matching ErrInvalidRow when r fails a check.
func (c *rowChecker) check(r Row) error {
	if err := checkRow(r, c.params); err != nil {
		return err
	}
	if r.Status != StatusPruned {
		if err := c.space.Check(r.Config); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidRow, err)
		}
	}
	if c.tasks != nil {
		if err := c.tasks.CheckTask(r.Task); err != nil {
			return fmt.Errorf("%w: shape %v: %v", ErrInvalidRow, r.Task, err)
		}
	}
	return nil
}

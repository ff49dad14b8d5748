package eval

import (
	"fmt"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/search"
)

// Roles names, for one kernel family, the parameter a classifier fixes (the
// technique) and the parts the others play in Garvey and Abdelrahman's
// grouped heuristics.
type Roles struct {
	Technique string
	Dims      search.Dims
	// FoldBy names the task features that identify one kernel of the
	// family apart from its array size: a technique classifier evaluated
	// on a kernel is trained without every shape that agrees on them.
	// Empty means every task feature (leave one shape out).
	FoldBy []string
}

// KernelRoles returns the roles of the parameters of augur's kernel
// families that the grouped heuristics apply to, and ErrNoRoles for
// another. The stencil family names its groups itself
// (datasets.StencilGroups). conv2d has no cyclic merging: its work per
// thread in each dimension plays the block merge factor, and its
// local-memory variant (LS) the technique.
func KernelRoles(kernel string) (Roles, error) {
	switch kernel {
	case "stencil":
		d, err := search.DimsFromGroups(datasets.StencilGroups())
		if err != nil {
			return Roles{}, fmt.Errorf("eval: stencil: %w", err)
		}
		return Roles{Technique: "technique", Dims: d, FoldBy: []string{"pattern", "dims", "radius", "orient"}}, nil
	case "conv2d":
		return Roles{Technique: "LS", Dims: search.Dims{
			WorkGroup: []string{"Xwg", "Ywg"},
			Block:     []string{"Xwpt", "Ywpt"},
			Other:     []string{"VW", "PAD", "UNR"},
		}}, nil
	}
	return Roles{}, fmt.Errorf("%w: %q", ErrNoRoles, kernel)
}

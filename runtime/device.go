package runtime

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// ResolveDevice sets opt for a device named by a user (a command line, a
// configuration file): a device bundle b has a model of (by its slug or
// name) goes to opt.Device as it is; else a device of table (nil: the
// device table augur ships, datasets.Devices) gives its features in
// opt.Platform, so that a fleet bundle serves it by its policy for
// devices it has no model of; else the error wraps ErrUnknownDevice and
// lists the closest names.
func ResolveDevice(b *features.Bundle, name string, table *datasets.DeviceTable, opt *Options) error {
	var known []string
	for _, m := range b.Models {
		known = append(known, m.Name)
		if strings.EqualFold(m.Name, name) || (m.Platform != nil && (strings.EqualFold(m.Platform.Name, name) || m.Platform.Slug() == name)) {
			opt.Device = name
			return nil
		}
		if m.Platform != nil {
			known = append(known, m.Platform.Name)
		}
	}
	where := "the given device table"
	if table == nil {
		table, where = datasets.Devices(), "the shipped device table"
	}
	if p := tableDevice(table, name); p != nil {
		opt.Device, opt.Platform = "", p
		return nil
	}
	for _, p := range table.Devices {
		known = append(known, p.Name, p.Slug())
	}
	return fmt.Errorf("%w %q in the bundle's models or %s; closest: %s", ErrUnknownDevice, name, where, strings.Join(closest(name, known, 5), ", "))
}

// tableDevice returns the device of table named name (its name, in any
// case, or its slug), or nil.
func tableDevice(table *datasets.DeviceTable, name string) *features.Platform {
	for _, p := range table.Devices {
		if strings.EqualFold(p.Name, name) || p.Slug() == name {
			return &p
		}
	}
	return nil
}

// closest returns the n names nearest to name, ignoring case, punctuation
// and spaces: those that contain it, then by edit distance; each once.
func closest(name string, names []string, n int) []string {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				return r
			case r >= 'A' && r <= 'Z':
				return r + 'a' - 'A'
			}
			return -1
		}, s)
	}
	type scored struct {
		name string
		d    int
	}
	var all []scored
	seen := map[string]bool{}
	for _, c := range names {
		if !seen[c] {
			seen[c] = true
			// A name the asked one is part of comes first, shortest first.
			d := len(c)
			if n, nc := norm(name), norm(c); !strings.Contains(nc, n) {
				d = 1000 + editDistance(n, nc)
			}
			all = append(all, scored{c, d})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(a.d, b.d) })
	var out []string
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

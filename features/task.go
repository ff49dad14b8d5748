package features

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Task is an input shape: a value for each of a kernel's task features (for
// conv2d: width, height, filter_w, filter_h), in the kernel's order.
type Task []int

// MaxTaskLen is the most task features a kernel may have; it lets a task be
// a map key without allocating (see TaskKey).
const MaxTaskLen = 8

// TaskKey is a task as a comparable value.
type TaskKey [MaxTaskLen]int

// Key returns t as a map key. Tasks longer than MaxTaskLen are cut; kernels
// are checked for that when they are defined.
func (t Task) Key() TaskKey {
	var k TaskKey
	copy(k[:], t)
	return k
}

// FormatTask writes t as "name=value,..." using names.
func FormatTask(names []string, t Task) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteByte('=')
		if i < len(t) {
			b.WriteString(strconv.Itoa(t[i]))
		}
	}
	return b.String()
}

// ParseTask reads "name=value,..." naming each of names exactly once.
func ParseTask(names []string, text string) (Task, error) {
	kv, err := parsePairs(text)
	if err != nil {
		return nil, err
	}
	t := make(Task, len(names))
	for i, n := range names {
		v, ok := kv[n]
		if !ok {
			var unknown []string
			for k := range kv {
				if !slices.Contains(names, k) {
					unknown = append(unknown, strconv.Quote(k))
				}
			}
			if len(unknown) > 0 {
				// A misspelt name: say which, not only what is missing.
				slices.Sort(unknown)
				return nil, fmt.Errorf("%w: shape %q lacks %s and names %s, no shape feature (want %s)", ErrSyntax, text, n, strings.Join(unknown, ", "), strings.Join(names, ","))
			}
			return nil, fmt.Errorf("%w: shape %q lacks %s (want %s)", ErrSyntax, text, n, strings.Join(names, ","))
		}
		t[i] = v
		delete(kv, n)
	}
	for n := range kv {
		return nil, fmt.Errorf("%w: shape feature %q (want %s)", ErrUnknownName, n, strings.Join(names, ","))
	}
	return t, nil
}

// ParseTasks reads several shapes separated by ';'.
func ParseTasks(names []string, text string) ([]Task, error) {
	var out []Task
	for _, part := range strings.Split(text, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		t, err := ParseTask(names, part)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no shapes in %q", ErrSyntax, text)
	}
	return out, nil
}

// parsePairs reads "k=v,k=v" with integer values.
func parsePairs(text string) (map[string]int, error) {
	kv := map[string]int{}
	for i, field := range strings.Split(text, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			return nil, fmt.Errorf("%w: empty field %d in %q", ErrSyntax, i+1, text)
		}
		k, v, ok := strings.Cut(field, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: field %d %q is not name=value", ErrSyntax, i+1, field)
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%w: field %d %q: value is not an integer", ErrSyntax, i+1, field)
		}
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("%w: %q given twice", ErrSyntax, k)
		}
		kv[k] = n
	}
	return kv, nil
}

// ShapeLines returns the shapes of a list of them as a file or a pipe
// holds it: one or more a line, separated by ';', with blank lines and
// comments from '#' to the end of a line left out. The shapes are
// trimmed, not parsed (ParseTask reads each).
func ShapeLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		for _, s := range strings.Split(line, ";") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// AliasProblemSizes rewrites the fields problem_size_I of text ("k=v,...;
// ..."), Kernel Tuner's name of a problem's I-th size, as names[I], so
// that a spec kernel's shapes answer to both; a name that is itself
// problem_size_I keeps its field.
func AliasProblemSizes(names []string, text string) string {
	alias := map[string]string{}
	for i, n := range names {
		if a := fmt.Sprintf("problem_size_%d", i); a != n && !slices.Contains(names, a) {
			alias[a] = n
		}
	}
	if len(alias) == 0 || !strings.Contains(text, "problem_size_") {
		return text
	}
	shapes := strings.Split(text, ";")
	for si, shape := range shapes {
		fields := strings.Split(shape, ",")
		for i, f := range fields {
			if k, v, ok := strings.Cut(f, "="); ok {
				if n, ok := alias[strings.TrimSpace(k)]; ok {
					fields[i] = n + "=" + v
				}
			}
		}
		shapes[si] = strings.Join(fields, ",")
	}
	return strings.Join(shapes, ";")
}

package lightgbm

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Read reads a model in LightGBM's text format from r; see Parse. It reads
// at most 1 GiB.
func Read(r io.Reader) (*Model, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("lightgbm: read model: %w", err)
	}
	if len(b) > maxInput {
		return nil, fmt.Errorf("lightgbm: model text is over %d bytes", maxInput)
	}
	return Parse(string(b))
}

// Parse reads a model in LightGBM's text format, version v3, and checks
// that Predict can evaluate it: every split numerical (decision_type 0 or
// 2, num_cat=0), every split feature in [0, max_feature_idx], every array
// of the length num_leaves implies, every child index in range and every
// node reached from the root exactly once, finite numbers, tree_sizes (when
// present) equal to the blocks' byte sizes, and a whole number of
// iterations of num_tree_per_iteration trees. Keys it does not know are
// errors, as are repeated keys. The feature_importances section is skipped
// (Write derives it from the trees) and so is pandas_categorical.
//
// Every error is a *SyntaxError naming the line. Parse does not panic or
// loop on any input, and allocates in proportion to len(text).
func Parse(text string) (*Model, error) {
	p := &parser{text: text}
	m, err := p.model()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// parser reads text line by line.
type parser struct {
	text      string
	pos       int // offset of the next line
	line      int // number of the line last returned, from 1
	lineStart int // offset of the line last returned
}

// next returns the next line without its '\n', or false at the end.
func (p *parser) next() (string, bool) {
	if p.pos >= len(p.text) {
		return "", false
	}
	p.lineStart = p.pos
	p.line++
	rest := p.text[p.pos:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		p.pos += i + 1
		return rest[:i], true
	}
	p.pos = len(p.text)
	return rest, true
}

func (p *parser) errorf(line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}

func (p *parser) model() (*Model, error) {
	m := &Model{}
	s, ok := p.next()
	if !ok {
		return nil, p.errorf(1, "empty text, want a LightGBM model")
	}
	if s != "tree" {
		return nil, p.errorf(1, "first line is %s, want \"tree\"", clip(s))
	}
	sizes, sizesLine, err := p.header(m)
	if err != nil {
		return nil, err
	}
	if err := p.trees(m, sizes, sizesLine); err != nil {
		return nil, err
	}
	if err := p.sections(m); err != nil {
		return nil, err
	}
	return m, nil
}

// header reads the key=value lines up to the first blank line and returns
// tree_sizes (nil when absent) and its line.
func (p *parser) header(m *Model) (sizes []int, sizesLine int, err error) {
	lines := map[string]int{}
	for {
		s, ok := p.next()
		if !ok {
			return nil, 0, p.errorf(p.line, "truncated: the header has no blank line after it and no trees")
		}
		if s == "" {
			break
		}
		key, val, hasValue := strings.Cut(s, "=")
		if _, dup := lines[key]; dup {
			return nil, 0, p.errorf(p.line, "second %s line (first on line %d)", key, lines[key])
		}
		lines[key] = p.line
		if key == "average_output" {
			if hasValue {
				return nil, 0, p.errorf(p.line, "average_output takes no value")
			}
			m.Average = true
			continue
		}
		if !hasValue {
			return nil, 0, p.errorf(p.line, "line %s is not key=value", clip(s))
		}
		var err error
		switch key {
		case "version":
			m.Version = val
		case "num_class":
			m.NumClass, err = strconv.Atoi(val)
		case "num_tree_per_iteration":
			m.NumTreePerIteration, err = strconv.Atoi(val)
		case "label_index":
			m.LabelIndex, err = strconv.Atoi(val)
		case "max_feature_idx":
			m.MaxFeatureIdx, err = strconv.Atoi(val)
		case "objective":
			m.Objective = val
		case "feature_names":
			m.FeatureNames = strings.Split(val, " ")
		case "feature_infos":
			m.FeatureInfos = strings.Split(val, " ")
		case "monotone_constraints":
			m.MonotoneConstraints, err = parseList(val, func(s string) (int8, error) {
				v, err := strconv.ParseInt(s, 10, 8)
				return int8(v), err
			})
		case "tree_sizes":
			if n := strings.Count(val, " ") + 1; n > MaxTrees {
				return nil, 0, p.errorf(p.line, "tree_sizes lists %d trees, at most %d supported", n, MaxTrees)
			}
			sizes, err = parseList(val, strconv.Atoi)
			sizesLine = p.line
		default:
			return nil, 0, p.errorf(p.line, "unknown header key %s", clip(key))
		}
		if err != nil {
			return nil, 0, p.errorf(p.line, "%s: %v", key, numMessage(err))
		}
	}
	for _, key := range []string{"version", "num_class", "num_tree_per_iteration", "max_feature_idx", "feature_names", "feature_infos"} {
		if _, ok := lines[key]; !ok {
			return nil, 0, p.errorf(p.line, "the header has no %s line", key)
		}
	}
	if fe := m.checkHeader(); fe != nil {
		return nil, 0, p.errorf(lines[fe.key], "%s", fe.msg)
	}
	for i, n := range sizes {
		if n < 0 {
			return nil, 0, p.errorf(sizesLine, "tree_sizes[%d] is %d, a negative size", i, n)
		}
	}
	return sizes, sizesLine, nil
}

// trees reads the "Tree=i" blocks up to "end of trees".
func (p *parser) trees(m *Model, sizes []int, sizesLine int) error {
	start, startLine := -1, 0 // the current block's offset and line
	nodes := 0                // of the trees read so far
	// closeBlock checks the size of the block that ends at offset end.
	closeBlock := func(end int) error {
		if start < 0 || sizes == nil {
			return nil
		}
		i := len(m.Trees) - 1
		if got := end - start; got != sizes[i] {
			return p.errorf(startLine, "tree %d: block is %d bytes, tree_sizes (line %d) says %d", i, got, sizesLine, sizes[i])
		}
		return nil
	}
	for {
		s, ok := p.next()
		if !ok {
			return p.errorf(p.line, "truncated: no \"end of trees\" line after %d trees", len(m.Trees))
		}
		if s == "" {
			continue
		}
		if s == "end of trees" {
			if err := closeBlock(p.lineStart); err != nil {
				return err
			}
			break
		}
		idx, isTree := strings.CutPrefix(s, "Tree=")
		if !isTree {
			return p.errorf(p.line, "line %s: want Tree=%d or \"end of trees\"", clip(s), len(m.Trees))
		}
		if err := closeBlock(p.lineStart); err != nil {
			return err
		}
		if idx != strconv.Itoa(len(m.Trees)) {
			return p.errorf(p.line, "line %s: want Tree=%d", clip(s), len(m.Trees))
		}
		if len(m.Trees) == MaxTrees {
			return p.errorf(p.line, "more than %d trees", MaxTrees)
		}
		if sizes != nil && len(m.Trees) == len(sizes) {
			return p.errorf(p.line, "tree %d: tree_sizes (line %d) lists %d trees", len(m.Trees), sizesLine, len(sizes))
		}
		start, startLine = p.lineStart, p.line
		t, err := p.tree(len(m.Trees), m.MaxFeatureIdx)
		if err != nil {
			return err
		}
		if nodes += treeNodes(t.NumLeaves); nodes > MaxNodes {
			return p.errorf(startLine, "tree %d: the trees so far have %d nodes, at most %d supported", len(m.Trees), nodes, MaxNodes)
		}
		m.Trees = append(m.Trees, t)
	}
	if sizes != nil && len(sizes) != len(m.Trees) {
		return p.errorf(p.line, "%d trees, tree_sizes (line %d) lists %d", len(m.Trees), sizesLine, len(sizes))
	}
	if msg := m.checkTrees(); msg != "" {
		return p.errorf(p.line, "%s", msg)
	}
	return nil
}

// tree reads the key=value lines of tree i, whose "Tree=i" line has just
// been read, up to a blank line or the end of the text.
func (p *parser) tree(i, maxFeature int) (Tree, error) {
	t := Tree{Shrinkage: 1}
	treeLine := p.line
	lines := map[string]int{}
	for {
		s, ok := p.next()
		if !ok || s == "" {
			break
		}
		key, val, hasValue := strings.Cut(s, "=")
		if !hasValue {
			return t, p.errorf(p.line, "tree %d: line %s is not key=value", i, clip(s))
		}
		if _, dup := lines[key]; dup {
			return t, p.errorf(p.line, "tree %d: second %s line (first on line %d)", i, key, lines[key])
		}
		lines[key] = p.line
		var err error
		switch key {
		case "num_leaves":
			// Checked at once, before the arrays it sizes are read.
			if t.NumLeaves, err = strconv.Atoi(val); err == nil && (t.NumLeaves < 1 || t.NumLeaves > MaxLeaves) {
				return t, p.errorf(p.line, "tree %d: num_leaves %d is not in [1, %d]", i, t.NumLeaves, MaxLeaves)
			}
		case "num_cat":
			if val != "0" {
				return t, p.errorf(p.line, "tree %d: num_cat=%s: categorical splits are not supported", i, clip(val))
			}
		case "cat_boundaries", "cat_threshold":
			return t, p.errorf(p.line, "tree %d: %s: categorical splits are not supported", i, key)
		case "is_linear":
			if val != "0" {
				return t, p.errorf(p.line, "tree %d: is_linear=%s: linear trees are not supported", i, clip(val))
			}
		case "split_feature":
			t.SplitFeature, err = parseList(val, parseInt32)
		case "split_gain":
			t.SplitGain, err = parseList(val, parseFloat)
		case "threshold":
			t.Threshold, err = parseList(val, parseFloat)
		case "decision_type":
			t.DecisionType, err = parseList(val, func(s string) (int8, error) {
				v, err := strconv.ParseInt(s, 10, 8)
				return int8(v), err
			})
		case "left_child":
			t.LeftChild, err = parseList(val, parseInt32)
		case "right_child":
			t.RightChild, err = parseList(val, parseInt32)
		case "leaf_value":
			t.LeafValue, err = parseList(val, parseFloat)
		case "leaf_weight":
			t.LeafWeight, err = parseList(val, parseFloat)
		case "leaf_count":
			t.LeafCount, err = parseList(val, strconv.Atoi)
		case "internal_value":
			t.InternalValue, err = parseList(val, parseFloat)
		case "internal_weight":
			t.InternalWeight, err = parseList(val, parseFloat)
		case "internal_count":
			t.InternalCount, err = parseList(val, strconv.Atoi)
		case "shrinkage":
			t.Shrinkage, err = parseFloat(val)
		default:
			return t, p.errorf(p.line, "tree %d: unknown key %s", i, clip(key))
		}
		if err != nil {
			return t, p.errorf(p.line, "tree %d: %s: %v", i, key, numMessage(err))
		}
	}
	for _, key := range []string{"num_leaves", "num_cat", "leaf_value"} {
		if _, ok := lines[key]; !ok {
			return t, p.errorf(treeLine, "tree %d: no %s line", i, key)
		}
	}
	if fe := t.check(maxFeature); fe != nil {
		line, ok := lines[fe.key]
		if !ok {
			line = treeLine
		}
		return t, p.errorf(line, "tree %d: %s", i, fe.msg)
	}
	return t, nil
}

// sections reads what follows "end of trees": the feature_importances
// section (skipped), the parameters section and pandas_categorical.
func (p *parser) sections(m *Model) error {
	seen := map[string]int{}
	for {
		s, ok := p.next()
		if !ok {
			return nil
		}
		if s == "" {
			continue
		}
		name := s
		if strings.HasPrefix(s, "pandas_categorical:") {
			name = "pandas_categorical:"
		}
		if first, dup := seen[name]; dup {
			return p.errorf(p.line, "second %s line (first on line %d)", name, first)
		}
		seen[name] = p.line
		switch name {
		case "feature_importances:":
			if err := p.importances(); err != nil {
				return err
			}
		case "parameters:":
			if err := p.params(m); err != nil {
				return err
			}
		case "pandas_categorical:":
		default:
			return p.errorf(p.line, "unexpected line %s after the trees", clip(s))
		}
	}
}

// importances skips the feature_importances lines, name=value, up to a
// blank line.
func (p *parser) importances() error {
	for {
		s, ok := p.next()
		if !ok || s == "" {
			return nil
		}
		if !strings.Contains(s, "=") {
			return p.errorf(p.line, "feature importance %s is not name=value", clip(s))
		}
	}
}

// params reads "[key: value]" lines up to "end of parameters".
func (p *parser) params(m *Model) error {
	m.Params = []Param{}
	for {
		s, ok := p.next()
		if !ok {
			return p.errorf(p.line, "truncated: no \"end of parameters\" line")
		}
		if s == "end of parameters" {
			return nil
		}
		if s == "" {
			continue
		}
		inner, ok := strings.CutPrefix(s, "[")
		if ok {
			inner, ok = strings.CutSuffix(inner, "]")
		}
		key, val, hasColon := strings.Cut(inner, ": ")
		if !ok || !hasColon {
			return p.errorf(p.line, "parameter %s is not [key: value]", clip(s))
		}
		param := Param{Key: key, Value: val}
		if msg := checkParam(param); msg != "" {
			return p.errorf(p.line, "%s", msg)
		}
		m.Params = append(m.Params, param)
	}
}

// parseList parses the space-separated values of s; an empty s is an empty,
// non-nil list, so that Write writes the line back.
func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	if s == "" {
		return []T{}, nil
	}
	fields := strings.Split(s, " ")
	out := make([]T, len(fields))
	for i, f := range fields {
		v, err := parse(f)
		if err != nil {
			return nil, fmt.Errorf("value %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

func parseInt32(s string) (int32, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	return int32(v), err
}

// parseFloat parses a number; out-of-range values (1e999) are errors, and
// the checks of Tree reject NaN and infinities written as such.
func parseFloat(s string) (float64, error) {
	return strconv.ParseFloat(s, 64)
}

// numMessage shortens strconv's errors, which name the function and may
// quote a whole line.
func numMessage(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		msg := clip(ne.Num) + ": " + ne.Err.Error()
		if prefix, _, ok := strings.Cut(err.Error(), ": strconv."); ok {
			msg = prefix + ": " + msg // parseList's "value i"
		}
		return msg
	}
	return err.Error()
}

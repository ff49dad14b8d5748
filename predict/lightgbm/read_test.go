package lightgbm

import (
	"errors"
	"strings"
	"testing"
)

// small is a two-tree model as Write writes it; TestParseErrors corrupts it
// line by line, so its line numbers matter.
const small = `tree
version=v3
num_class=1
num_tree_per_iteration=1
label_index=0
max_feature_idx=2
objective=regression
feature_names=task.n param.wg param.unroll
feature_infos=[1:8] [1:4] none
tree_sizes=234 186

Tree=0
num_leaves=3
num_cat=0
split_feature=1 0
split_gain=4.5 1.25
threshold=2 0.5
decision_type=2 2
left_child=1 -1
right_child=-3 -2
leaf_value=-1 -2 1.5
leaf_count=3 4 5
internal_value=0.1 -0.5
internal_count=12 7
shrinkage=0.1


Tree=1
num_leaves=1
num_cat=0
split_feature=
split_gain=
threshold=
decision_type=
left_child=
right_child=
leaf_value=0.25
leaf_count=12
internal_value=
internal_count=
shrinkage=0.1


end of trees

feature_importances:
task.n=1
param.wg=1

parameters:
[boosting: gbdt]
[learning_rate: 0.1]

end of parameters

pandas_categorical:null
`

// withLine returns small with line n (from 1) replaced by s; an s holding
// '\n' adds lines.
func withLine(n int, s string) string {
	lines := strings.Split(small, "\n")
	lines[n-1] = s
	return strings.Join(lines, "\n")
}

// firstLines returns the first n lines of small, each with its '\n'.
func firstLines(n int) string {
	lines := strings.SplitAfter(small, "\n")
	return strings.Join(lines[:n], "")
}

func TestParseSmall(t *testing.T) {
	m, err := Parse(small)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(m.Trees), 2; got != want {
		t.Fatalf("%d trees, want %d", got, want)
	}
	// x[1] <= 2 and x[0] <= 0.5: leaf 0 (-1), plus the constant tree.
	for _, tt := range []struct {
		x    []float64
		want float64
	}{
		{[]float64{0, 2, 9}, -1 + 0.25},
		{[]float64{0.6, 2, 9}, -2 + 0.25},
		{[]float64{0, 2.5, 9}, 1.5 + 0.25},
	} {
		if got := m.Predict(tt.x); got != tt.want {
			t.Errorf("Predict(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int
		want string // in the message
	}{
		{"empty", "", 1, "empty"},
		{"not a model", "{\"models\": []}\n", 1, `want "tree"`},
		{"version v4", withLine(2, "version=v4"), 2, `version "v4": only v3`},
		{"no version", withLine(2, "label_index=0"), 5, "second label_index"},
		{"unknown header key", withLine(5, "linear_tree=1"), 5, "unknown header key"},
		{"num_class 0", withLine(3, "num_class=0"), 3, "num_class 0"},
		{"bad max_feature_idx", withLine(6, "max_feature_idx=x"), 6, `"x": invalid syntax`},
		{"names for fewer features", withLine(6, "max_feature_idx=3"), 8, "3 feature names for max_feature_idx=3"},
		{"name with =", withLine(8, "feature_names=a b=c d"), 8, `feature name "b=c"`},
		{"infos short", withLine(9, "feature_infos=[1:8] none"), 9, "2 feature infos"},
		{"negative tree size", withLine(10, "tree_sizes=234 -1"), 10, "negative size"},
		{"out-of-range feature", withLine(15, "split_feature=1 3"), 15, "split_feature[1] is 3, not a feature in [0, 2]"},
		{"negative feature", withLine(15, "split_feature=-1 0"), 15, "split_feature[0] is -1"},
		{"child index out of range", withLine(19, "left_child=5 -1"), 19, "left_child[0] is 5, not a node"},
		{"leaf index out of range", withLine(20, "right_child=-3 -4"), 20, "right_child[1] is -4, leaf 3 of a tree of 3 leaves"},
		{"cycle in left_child", withLine(19, "left_child=1 1"), 19, "node 1 is reached twice"},
		{"child is the root", withLine(19, "left_child=1 0"), 19, "node 0 is reached twice"},
		{"node reached twice", withLine(20, "right_child=-1 -2"), 19, "leaf 0 is reached twice"},
		{"wrong array length", withLine(17, "threshold=2"), 17, "1 values in threshold, want 2"},
		{"long leaf_value", withLine(21, "leaf_value=-1 -2 1.5 7"), 21, "4 leaf values for num_leaves=3"},
		{"NaN leaf", withLine(21, "leaf_value=-1 NaN 1.5"), 21, "leaf_value[1] is NaN"},
		{"infinite threshold", withLine(17, "threshold=2 +Inf"), 17, "threshold[1] is +Inf"},
		{"overflowing number", withLine(17, "threshold=2 1e999"), 17, "value out of range"},
		{"two spaces", withLine(17, "threshold=2  0.5"), 17, "value 1"},
		{"categorical split", withLine(18, "decision_type=2 1"), 18, "decision_type[1] is 1"},
		{"missing-value rule", withLine(18, "decision_type=10 2"), 18, "decision_type[0] is 10"},
		{"num_cat", withLine(14, "num_cat=1"), 14, "categorical splits are not supported"},
		{"linear tree", withLine(25, "is_linear=1\nshrinkage=0.1"), 25, "linear trees"},
		{"no split_feature", withLine(15, "is_linear=0"), 12, "no split_feature for a tree of 3 leaves"},
		{"no leaf_value", withLine(21, "is_linear=0"), 12, "no leaf_value line"},
		{"num_leaves 0", withLine(13, "num_leaves=0"), 13, "num_leaves 0 is not in"},
		{"num_leaves huge", withLine(13, "num_leaves=2000000"), 13, "num_leaves 2000000 is not in"},
		{"duplicate tree key", withLine(22, "leaf_value=1 2 3"), 22, "second leaf_value"},
		{"unknown tree key", withLine(22, "leaf_counts=1 2 3"), 22, "unknown key"},
		{"not key=value", withLine(22, "leaf_count"), 22, "not key=value"},
		{"wrong tree index", withLine(28, "Tree=2"), 28, "want Tree=1"},
		{"stray line", withLine(27, "hello"), 27, `"hello": want Tree=1`},
		{"tree_sizes mismatch", withLine(10, "tree_sizes=234 185"), 28, "block is 186 bytes, tree_sizes (line 10) says 185"},
		{"tree_sizes too few", withLine(10, "tree_sizes=234"), 28, "tree_sizes (line 10) lists 1 trees"},
		{"tree_sizes too many", withLine(10, "tree_sizes=234 186 100"), 44, "2 trees, tree_sizes (line 10) lists 3"},
		{"partial iteration", withLine(4, "num_tree_per_iteration=4"), 44, "not a whole number of iterations"},
		{"truncated header", firstLines(5), 5, "truncated"},
		{"truncated in a tree", firstLines(30), 28, "no leaf_value line"},
		{"truncated after a tree", firstLines(43), 43, `truncated: no "end of trees"`},
		{"truncated parameters", firstLines(52), 52, `no "end of parameters"`},
		{"bad parameter", withLine(52, "learning_rate=0.1"), 52, "not [key: value]"},
		{"stray line at the end", withLine(56, "pandas_categorical:null\nmore"), 57, "unexpected line"},
		{"second parameters", withLine(56, "parameters:\nend of parameters"), 56, "second parameters:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.text)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse = %v, %v; want a *SyntaxError", m, err)
			}
			if se.Line != tt.line || !strings.Contains(se.Msg, tt.want) {
				t.Errorf("err = %v; want line %d mentioning %q", err, tt.line, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "lightgbm: line ") {
				t.Errorf("err = %q, want the prefix \"lightgbm: line N: \"", err)
			}
		})
	}
}

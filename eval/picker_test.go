package eval_test

import (
	"testing"

	"github.com/augur-tuning/augur/eval"
)

func TestHoldoutShapePicker(t *testing.T) {
	tests := []struct {
		s    eval.HoldoutShape
		want string
	}{
		{eval.HoldoutShape{Learner: "gbrt-d4-t100-lr0.1-min10"}, "gbrt-d4-t100-lr0.1-min10"},
		{eval.HoldoutShape{Learner: "gbrt-d4-t100-lr0.1-min10", Consensus: true}, "gbrt-d4-t100-lr0.1-min10 +rule"},
		{eval.HoldoutShape{}, ""},
	}
	for _, tt := range tests {
		if got := tt.s.Picker(); got != tt.want {
			t.Errorf("Picker() of %+v = %q, want %q", tt.s, got, tt.want)
		}
	}
}

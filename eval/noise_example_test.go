package eval_test

import (
	"fmt"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/eval"
)

// A shape of two configurations timed 3 times each, as a dataset row keeps
// them (median, minimum, coefficient of variation): A ran 100, 100 and
// 100 ns; B ran 60, 130 and 130 ns. A has the faster median, but B's one
// lucky run makes an oracle that measured each once pick B now and then
// (TestSplitHalf derives the exact 79.2% and 90.3%).
func ExampleSplitHalf() {
	timing := func(runs ...float64) eval.Timing {
		med, lo, cv := record.Summarize(runs)
		return eval.Timing{MedianNs: med, MinNs: lo, CV: cv, Repeats: len(runs)}
	}
	a, b := timing(100, 100, 100), timing(60, 130, 130)
	sp, err := eval.SplitHalf([]eval.Timing{a, b}, []int{0}, eval.NoiseOptions{Draws: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("oracle %.0f%%, the recorded optimum A %.0f%% of the other half's best (%d configurations' runs recorded)\n",
		sp.Oracle, sp.Scores[0], sp.Recorded)
	// Output:
	// oracle 79%, the recorded optimum A 90% of the other half's best (2 configurations' runs recorded)
}

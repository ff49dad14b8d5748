package predict

import "github.com/augur-tuning/augur/features"

// HasFlat reports whether m uses the flat evaluator.
func HasFlat(m *Model) bool { return m.flat != nil }

// LeavesPredict scores with leaves alone.
func LeavesPredict(m *Model, t features.Task, c features.Config) float64 {
	return m.leavesPredict(t, c)
}

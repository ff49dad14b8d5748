package train

import "testing"

func TestChooseScore(t *testing.T) {
	type s = PickScore
	for _, tc := range []struct {
		name   string
		scores []PickScore
		want   int
	}{
		{"the best when nothing cheaper is near", []s{{PctGeomean: 90, Cost: 400}, {PctGeomean: 95, Cost: 1200}}, 1},
		{"a cheaper one within 0.5 points", []s{{PctGeomean: 95, Cost: 1200}, {PctGeomean: 94.6, Cost: 500}}, 1},
		{"the cheapest of those within 0.5 points", []s{{PctGeomean: 95, Cost: 1200}, {PctGeomean: 94.9, Cost: 500}, {PctGeomean: 94.6, Cost: 400}}, 2},
		{"not one 0.5 points or more below", []s{{PctGeomean: 95, Cost: 1200}, {PctGeomean: 94.4, Cost: 400}}, 0},
		// gemm, session 35: two settings of cost 500 within 0.5 points of
		// the best; the one listed first scored lower.
		{"of equally cheap ones, the higher score", []s{{PctGeomean: 99.5, Cost: 1200}, {PctGeomean: 99.2, Cost: 500}, {PctGeomean: 99.4, Cost: 500}}, 2},
		{"of equally cheap and equal ones, the first", []s{{PctGeomean: 99.5, Cost: 1200}, {PctGeomean: 99.2, Cost: 500}, {PctGeomean: 99.2, Cost: 500}}, 1},
		{"the best itself among equally cheap ones", []s{{PctGeomean: 99.2, Cost: 500}, {PctGeomean: 99.5, Cost: 500}}, 1},
		{"skipped candidates never", []s{{PctGeomean: 99, Cost: 1200}, {PctGeomean: 100, Cost: 100, Skipped: "budget"}}, 0},
	} {
		if got := chooseScore(tc.scores); got != tc.want {
			t.Errorf("%s: chose %d, want %d", tc.name, got, tc.want)
		}
	}
}

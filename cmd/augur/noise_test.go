package main

import (
	"bytes"
	"testing"

	"github.com/augur-tuning/augur/eval"
)

// TestWriteNoise checks eval's noise-ceiling line: absent without repeats,
// the picks' figures only with a holdout.
func TestWriteNoise(t *testing.T) {
	shapes := make([]eval.NoiseShape, 6)
	tests := []struct {
		name string
		n    *eval.NoiseReport
		want string
	}{
		{"no repeats", nil, ""},
		{"no holdout", &eval.NoiseReport{Shapes: shapes, Pct: 95.26, Worst: 86.04, RecordedBestPct: 97.3, RecordedBestWorst: 91.6, RowsRebuilt: 11232},
			"noise ceiling (split-half repeats, 6 shapes): an oracle judged on other repeats scores 95.3% (worst 86.0%), the recorded optimum 97.3% (worst 91.6%); runs of 0 rows as timed (0 kept in the files), 11232 rebuilt from their summaries\n"},
		{"holdout", &eval.NoiseReport{Shapes: shapes, Pct: 95.26, Worst: 86.04, RecordedBestPct: 97.3, RecordedBestWorst: 91.6, Picks: 6, PickPct: 96.04, PickWorst: 91.6, RowsRecorded: 200, RowsKept: 190, RowsRebuilt: 5, RowsDrawn: 1},
			"noise ceiling (split-half repeats, 6 shapes): an oracle judged on other repeats scores 95.3% (worst 86.0%), the recorded optimum 97.3% (worst 91.6%), the picks re-judged 96.0% (worst 91.6%); runs of 200 rows as timed (190 kept in the files), 5 rebuilt from their summaries, 1 drawn\n"},
		{"picks timed with fewer runs than their optima", &eval.NoiseReport{Shapes: shapes, Pct: 95.26, Worst: 86.04, RecordedBestPct: 97.3, RecordedBestWorst: 91.6, Picks: 6, PickPct: 96.04, PickWorst: 91.6, PicksFewerRuns: 2, RowsRecorded: 200, RowsKept: 200},
			"noise ceiling (split-half repeats, 6 shapes): an oracle judged on other repeats scores 95.3% (worst 86.0%), the recorded optimum 97.3% (worst 91.6%), the picks re-judged 96.0% (worst 91.6%); 2 of 6 picks were timed with fewer runs than their shape's optimum, so their misses rest on noisier timings (time them again with augur collect --confirm N --confirm-picks on this report's --json); runs of 200 rows as timed (200 kept in the files), 0 rebuilt from their summaries\n"},
		{"optima never timed again", &eval.NoiseReport{Shapes: shapes, Pct: 91.2, Worst: 86.0, RecordedBestPct: 96.6, RecordedBestWorst: 92.5, OptimaOnce: 6, RowsRecorded: 300},
			"noise ceiling (split-half repeats, 6 shapes): an oracle judged on other repeats scores 91.2% (worst 86.0%), the recorded optimum 96.6% (worst 92.5%); the recorded optima of 6 of 6 shapes were never timed again, and a fastest first timing of many is partly luck (time them again with augur collect --confirm 30 --sample none); runs of 300 rows as timed (0 kept in the files), 0 rebuilt from their summaries\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeNoise(&b, tt.n)
			if got := b.String(); got != tt.want {
				t.Errorf("writeNoise =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

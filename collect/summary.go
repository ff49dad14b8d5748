package collect

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/augur-tuning/augur/collect/record"
)

// String prints the summary on one line: rows by status, what was skipped,
// the wall time and how busy the device was.
func (s *Summary) String() string {
	var parts []string
	statuses := make([]record.Status, 0, len(s.Counts))
	for st := range s.Counts {
		statuses = append(statuses, st)
	}
	slices.Sort(statuses)
	for _, st := range statuses {
		parts = append(parts, fmt.Sprintf("%s %d", st, s.Counts[st]))
	}
	path := s.Path
	if path == "" {
		path = "(nothing new)"
	}
	line := fmt.Sprintf("%s on %s: %d rows [%s], %d already recorded, %d programs, wall %s, device busy %.1f%%",
		path, s.Platform.Slug(), s.Rows(), strings.Join(parts, ", "), s.Skipped, s.Programs,
		s.Wall.Round(time.Millisecond), s.BusyPercent())
	if s.Counts[record.StatusOK] > 0 && s.Spread.Median() > 0 {
		line += fmt.Sprintf(", timings vary by %.1f%% (median row)", 100*s.Spread.Median())
	}
	if m := s.ShiftMedian(); m > 0 {
		line += fmt.Sprintf(", %d random rows re-timed at %.3fx their first timings (median)", len(s.Shift), m)
	}
	if len(s.TaskErrors) > 0 {
		line += fmt.Sprintf("; %d shapes skipped: %s", len(s.TaskErrors), strings.Join(s.TaskErrors, "; "))
	}
	return line
}

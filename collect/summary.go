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
	line := fmt.Sprintf("%s on %s: %s [%s], %d already recorded, %s, wall %s, device busy %.1f%%",
		path, s.Platform.Slug(), count(s.Rows(), "row"), strings.Join(parts, ", "), s.Skipped, count(s.Programs, "program"),
		s.Wall.Round(time.Millisecond), s.BusyPercent())
	if s.Second {
		line = fmt.Sprintf("%s on %s: %s [%s], wall %s", path, s.Platform.Slug(), count(s.Rows(), "row"), strings.Join(parts, ", "),
			s.Wall.Round(time.Millisecond))
	}
	if s.Counts[record.StatusOK] > 0 && s.Spread.Median() > 0 {
		line += fmt.Sprintf(", timings vary by %.1f%% (median row)", 100*s.Spread.Median())
	}
	if m := s.ShiftMedian(); m > 0 {
		line += fmt.Sprintf(", %s re-timed at %.3fx their first timings (median)", count(len(s.Shift), "random row"), m)
	}
	if len(s.TaskErrors) > 0 {
		line += fmt.Sprintf("; %s skipped: %s", count(len(s.TaskErrors), "shape"), strings.Join(s.TaskErrors, "; "))
	}
	return line
}

// count writes n and noun, plural but for 1: "1 row", "3 rows".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

package record

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow/go/v15/arrow/memory"
)

// Leftover is a file that an interrupted writer left under a dataset
// directory: rows that readers (ReadDir) do not see until Recover turns
// them into a dataset file.
type Leftover struct {
	// Path is the *.arrow.partial stream or *.arrow.compact file.
	Path string
	// Rows is the number of complete rows it holds (for a compact file,
	// -1: not counted).
	Rows int
}

// Leftovers lists, without changing anything, the files under dir that
// dead writers left behind (a killed collect's partial streams), with the
// rows each holds. Files a live Writer holds are not listed: their rows
// are on their way. An empty list means every row under dir is readable.
func Leftovers(dir string) ([]Leftover, error) {
	var out []Leftover
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		partial := strings.HasSuffix(p, ".arrow"+partialSuffix)
		if d.IsDir() || !(partial || strings.HasSuffix(p, ".arrow"+compactSuffix)) {
			return nil
		}
		if live(p) {
			return nil
		}
		l := Leftover{Path: p, Rows: -1}
		if partial {
			l.Rows = countPartial(p)
		}
		if l.Rows != 0 {
			out = append(out, l)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Busy reports whether a live Writer, in this process or another, holds
// the partial file p (its lock is taken), so that a tool that cleans up
// after dead writers leaves a running one's file alone.
func Busy(p string) bool { return live(p) }

// live reports whether a writer holds the file p (its lock is taken).
func live(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true // gone meanwhile: someone is working on it
	}
	defer f.Close()
	return lockShared(f) != nil
}

// countPartial counts the complete rows of the partial stream at p.
func countPartial(p string) int {
	s, err := openPartial(p, memory.DefaultAllocator)
	if err != nil {
		return 0
	}
	defer s.release()
	n := 0
	for {
		rows, ok := s.next()
		if !ok {
			return n
		}
		n += len(rows)
	}
}

// DescribeLeftovers says on one line which files hold unrecovered rows and
// the command that recovers them; "" when there are none. command is what
// to run, such as "augur recover --data DIR".
func DescribeLeftovers(ls []Leftover, command string) string {
	if len(ls) == 0 {
		return ""
	}
	rows, parts := 0, make([]string, 0, len(ls))
	for _, l := range ls {
		if l.Rows > 0 {
			rows += l.Rows
			parts = append(parts, fmt.Sprintf("%s (%d rows)", l.Path, l.Rows))
		} else {
			parts = append(parts, l.Path)
		}
	}
	return fmt.Sprintf("%d files of an interrupted collect hold %d rows not read here: %s; run '%s' to recover them", len(ls), rows, strings.Join(parts, ", "), command)
}

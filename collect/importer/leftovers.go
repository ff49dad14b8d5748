package importer

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/augur-tuning/augur/collect/record"
)

// tempName matches the temporary files Import writes a dataset file under
// (write): ".import-NAME.arrow.tmp-N", with record's ".partial" or
// ".compact" while the writer is at it.
var tempName = regexp.MustCompile(`^\.import-.+\.arrow\.tmp-[0-9]+(\.partial|\.compact)?$`)

// Leftovers lists, without changing anything, the temporary files under
// dir that an import stopped before it finished (killed, or its machine
// down) left behind. No reader takes them for data, and their rows are
// still in the import's input files: they can be deleted, and the import
// run again. A file that a running import writes is not listed (its
// writer's lock is held); one it finished, waiting for the other inputs
// of its import, is.
func Leftovers(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !tempName.MatchString(d.Name()) {
			return nil
		}
		if strings.HasSuffix(p, ".partial") && record.Busy(p) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("importer: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

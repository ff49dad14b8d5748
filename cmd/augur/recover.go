package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/augur-tuning/augur/collect/importer"
	"github.com/augur-tuning/augur/collect/record"
)

func runRecover(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var data string
	fs := flags("recover", "--data DIR", stderr)
	fs.StringVar(&data, "data", "", "dataset directory whose interrupted collects' rows to recover (what collect does first, without measuring)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "data"); err != nil {
		return err
	}
	done, err := record.Recover(data, record.WriterOptions{})
	for _, r := range done {
		fmt.Fprintln(stdout, r)
	}
	if err != nil {
		return err // record names its package and the file
	}
	// An import's temporary files hold no rows to recover (its inputs
	// do), but nothing else names them.
	temps, _ := importer.Leftovers(data)
	for _, p := range temps {
		fmt.Fprintf(stdout, "%s: %s\n", p, importLeftover)
	}
	if len(done) == 0 {
		fmt.Fprintf(stdout, "nothing to recover under %s\n", data)
	}
	return nil
}

// importLeftover says what a temporary file of an import that was stopped
// is (importer.Leftovers), and what to do with it.
const importLeftover = "left by an import stopped before it finished; its rows are in the import's input files, not recoverable here: delete it and import again"

// warnImportLeftovers tells, on one line of w, which temporary files of a
// stopped import lie under dir, and returns them.
func warnImportLeftovers(w io.Writer, dir string) []string {
	temps, err := importer.Leftovers(dir)
	if err != nil || len(temps) == 0 {
		return nil
	}
	fmt.Fprintf(w, "augur: warning: %d temporary files of an import stopped before it finished, which no reader takes for data (their rows are in the import's input files): delete them and import again: %s\n",
		len(temps), strings.Join(temps, ", "))
	return temps
}

// warnLeftovers tells, on one line of w, which files under dir hold rows
// of an interrupted collect that the readers skip, and how to recover them.
// The readers stay read-only: recovering rewrites files, which a command
// that only reads data must not do behind the user's back.
func warnLeftovers(w io.Writer, dir string) {
	ls, err := record.Leftovers(dir)
	if err != nil {
		return // the reader that follows reports an unreadable directory
	}
	if msg := record.DescribeLeftovers(ls, "augur recover --data "+dir); msg != "" {
		fmt.Fprintln(w, "augur: warning:", msg)
	}
}

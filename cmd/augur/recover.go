package main

import (
	"context"
	"fmt"
	"io"

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
	if len(done) == 0 {
		fmt.Fprintf(stdout, "nothing to recover under %s\n", data)
	}
	return nil
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

package collect

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// logEvery is how often progress is written as a line where the output is
// not a terminal (a Slurm or Kubernetes log, a pipe).
const logEvery = 10 * time.Second

// progress is a progress bar on a terminal; elsewhere a line every
// logEvery (a bar redrawn into a log file is noise); nothing when w is nil.
type progress struct {
	bar *progressbar.ProgressBar
	// The line-writing form: w, what is counted, and how far it is.
	w           io.Writer
	description string
	max, done   int
	start, last time.Time
}

// newProgress shows progress over max steps on w.
func newProgress(w io.Writer, max int, description string) *progress {
	if w == nil || w == io.Discard {
		return &progress{}
	}
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		now := time.Now()
		return &progress{w: w, description: description, max: max, start: now, last: now}
	}
	return &progress{bar: progressbar.NewOptions(max,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionOnCompletion(func() { io.WriteString(w, "\n") }),
	)}
}

func (p *progress) add(n int) {
	switch {
	case p == nil:
	case p.bar != nil:
		p.bar.Add(n)
	case p.w != nil:
		p.done += n
		if now := time.Now(); now.Sub(p.last) >= logEvery {
			p.last = now
			p.line(now)
		}
	}
}

// line writes how far the work is, and how long the rest should take at
// the rate so far.
func (p *progress) line(now time.Time) {
	el := now.Sub(p.start)
	left := ""
	if p.done > 0 && p.max > p.done {
		left = fmt.Sprintf(", about %v left", (el * time.Duration(p.max-p.done) / time.Duration(p.done)).Round(time.Second))
	}
	fmt.Fprintf(p.w, "collect %s: %d of %d (%.0f%%), %v%s\n", p.description, p.done, p.max, 100*float64(p.done)/float64(max(p.max, 1)), el.Round(time.Second), left)
}

func (p *progress) finish() {
	if p != nil && p.bar != nil {
		p.bar.Finish()
	}
}

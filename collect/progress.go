package collect

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar, or nothing when the output is not a
// terminal: a bar redrawn into a log file or a pipe is noise.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress draws a bar of max steps on w when w is a terminal.
func newProgress(w io.Writer, max int, description string) progress {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return progress{}
	}
	return progress{bar: progressbar.NewOptions(max,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionOnCompletion(func() { io.WriteString(w, "\n") }),
	)}
}

func (p progress) add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

func (p progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

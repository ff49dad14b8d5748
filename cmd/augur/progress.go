package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Progress conventions of every command: progress goes to stderr, never
// stdout (which holds results, perhaps JSON). On a terminal a status line
// with a bar is redrawn in place once a step has run for showAfter; in a
// log (Slurm, Kubernetes, a pipe) a line is written every logEvery at most,
// so that a long step is visibly alive without flooding the log. --quiet,
// which every command takes, silences both.
const (
	showAfter = 2 * time.Second
	logEvery  = 10 * time.Second
	redraw    = 200 * time.Millisecond
)

// quiet reports whether fs's --quiet flag is set.
func quiet(fs *flag.FlagSet) bool {
	f := fs.Lookup("quiet")
	return f != nil && f.Value.String() == "true"
}

// progressTo is where a command's progress and notes go: stderr, or
// nowhere with --quiet.
func progressTo(fs *flag.FlagSet, stderr io.Writer) io.Writer {
	if quiet(fs) {
		return io.Discard
	}
	return stderr
}

// reporter renders a long step's progress on stderr. It takes counted
// steps (Step, which train.Options.Progress calls) and stage lines written
// to it as an io.Writer (what eval and the quickstart write), and between
// them keeps a log alive with a line every logEvery. Close stops it; a
// reporter must be closed before the command prints its results.
type reporter struct {
	w     io.Writer
	name  string // the command, prefixed to log lines
	tty   bool
	every time.Duration
	now   func() time.Time

	mu          sync.Mutex
	start       time.Time
	stage       string
	done, total int
	lastLine    time.Time // when a line was last written to a log
	drawn       bool      // a status line is on the terminal
	lastDraw    time.Time
	partial     []byte // an unfinished stage line written to the reporter

	stop chan struct{}
	wg   sync.WaitGroup
}

// newReporter starts a reporter for the command name on w; a nil or
// discarding w gives a reporter that writes nothing.
func newReporter(w io.Writer, name string) *reporter {
	r := &reporter{w: w, name: name, tty: isTerminal(w), every: logEvery, now: time.Now, stop: make(chan struct{})}
	r.start, r.lastLine = r.now(), r.now()
	if w == nil || w == io.Discard {
		r.w = nil
		return r
	}
	tick := r.every
	if r.tty {
		tick = redraw
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				r.mu.Lock()
				r.tick()
				r.mu.Unlock()
			}
		}
	}()
	return r
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Step records that done of total steps are finished and what runs now.
// Its signature is train.Options.Progress's.
func (r *reporter) Step(done, total int, stage string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done, r.total, r.stage = done, total, stage
	if r.tty {
		r.draw(false)
	}
}

// Write takes stage lines: each complete line is passed through at once
// (on a terminal above the status line) and becomes the current stage.
func (r *reporter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.partial = append(r.partial, p...)
	for {
		i := bytes.IndexByte(r.partial, '\n')
		if i < 0 {
			break
		}
		line := string(r.partial[:i])
		r.partial = r.partial[i+1:]
		if r.w == nil {
			continue
		}
		r.clear()
		fmt.Fprintln(r.w, line)
		r.stage, r.lastLine = strings.TrimSpace(line), r.now()
	}
	return len(p), nil
}

// tick writes the periodic line of a log, or redraws the terminal's
// status line. r.mu is held.
func (r *reporter) tick() {
	if r.w == nil {
		return
	}
	now := r.now()
	if r.tty {
		r.draw(false)
		return
	}
	if now.Sub(r.lastLine) >= r.every && now.Sub(r.start) >= showAfter {
		fmt.Fprintln(r.w, r.line(now))
		r.lastLine = now
	}
}

// line is the state of the run in one line of text.
func (r *reporter) line(now time.Time) string {
	var b strings.Builder
	b.WriteString(r.name)
	b.WriteString(":")
	if r.total > 0 {
		fmt.Fprintf(&b, " %d/%d", r.done, r.total)
	}
	if r.stage != "" {
		b.WriteString(" ")
		b.WriteString(r.stage)
	}
	fmt.Fprintf(&b, " (%s)", now.Sub(r.start).Round(time.Second))
	return b.String()
}

// draw redraws the terminal's status line, at most every redraw unless
// forced, and only once the run has lasted showAfter. r.mu is held.
func (r *reporter) draw(force bool) {
	if r.w == nil || !r.tty {
		return
	}
	now := r.now()
	if now.Sub(r.start) < showAfter || (!force && now.Sub(r.lastDraw) < redraw) {
		return
	}
	bar := ""
	if r.total > 0 {
		const width = 20
		n := min(width*r.done/r.total, width)
		bar = "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "] "
	}
	text := bar + r.line(now)
	if w, _, err := term.GetSize(int(r.w.(interface{ Fd() uintptr }).Fd())); err == nil && w > 1 && len(text) >= w {
		text = text[:w-1]
	}
	fmt.Fprintf(r.w, "\r\033[K%s", text)
	r.drawn, r.lastDraw = true, now
}

// clear removes the terminal's status line. r.mu is held.
func (r *reporter) clear() {
	if r.drawn {
		fmt.Fprint(r.w, "\r\033[K")
		r.drawn = false
	}
}

// Close stops the reporter and clears its status line; it is safe to call
// twice.
func (r *reporter) Close() {
	select {
	case <-r.stop:
		return
	default:
		close(r.stop)
	}
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil {
		if len(r.partial) > 0 {
			r.clear()
			fmt.Fprintln(r.w, string(r.partial))
			r.partial = nil
		}
		r.clear()
	}
}

package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/augur-tuning/augur/collect/record"
)

// DefaultProgramsPerProcess and DefaultGrowthMiB bound a collecting
// process's memory. PoCL 3.1 keeps what it built until the process ends
// (releasing the context gives none of it back): on the 2-core EPYC a new
// process grows by about 250 MB over its first hundred or so programs,
// then by about 0.5 MB a program it compiles (60 KB one it loads from its
// cache). A child stops at whichever limit comes first; the growth limit
// must leave room for that start-up, or every child would stop during
// it. A new child costs a few seconds of driver start-up.
const (
	DefaultProgramsPerProcess = 500
	DefaultGrowthMiB          = 512
)

// ExitMore is the exit status of a collecting child stopped by
// Options.MaxPrograms or Options.MaxGrowthBytes (a Run that returned
// ErrProgramLimit): more remains to measure, and Supervise starts another.
const ExitMore = 3

// ExitStatus is an error that has already been reported (by a child
// process, on the shared stderr): the command exits with its code and
// prints nothing more.
type ExitStatus int

func (e ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// ExitCode returns the exit status a collect command ending with err
// must exit with and print nothing more, and true; or false when err
// is to be reported as usual. A Run stopped by its program or growth
// limit (ErrProgramLimit) exits with ExitMore, which Supervise reads as
// "start another child"; an ExitStatus exits with its own code.
func ExitCode(err error) (int, bool) {
	var status ExitStatus
	switch {
	case errors.Is(err, ErrProgramLimit):
		return ExitMore, true
	case errors.As(err, &status):
		return int(status), true
	}
	return 0, false
}

// SuperviseOptions configure Supervise.
type SuperviseOptions struct {
	// Exe is the executable to run; "" means this process's own
	// (os.Executable).
	Exe string
	// Args are the child's arguments: a collect command that stops after
	// a bounded number of programs or growth with status ExitMore (the
	// CLI's `collect ... --max-programs N --max-growth M`), and reports
	// to file descriptor SupervisorFD (Options.Supervisor; the CLI's
	// `--supervisor-fd 3`).
	Args []string
	// Stdout and Stderr receive the child's output, and Stderr this
	// process's notes; nil discards them.
	Stdout, Stderr io.Writer

	// stopGrace is StopGrace, for tests; 0 means StopGrace.
	stopGrace time.Duration
}

// SupervisorFD is the file descriptor on which a child of Supervise finds
// the pipe it reports to (Options.Supervisor): the first after standard
// error.
const SupervisorFD = 3

// StopGrace is how long a measuring child of Supervise may take to stop
// once it is signalled, while it measures a configuration: one whose
// kernel does not finish keeps it from stopping, and Supervise kills it.
// A child stops within milliseconds otherwise; the programs it waits for
// once it has stopped measuring take what they take.
const StopGrace = 10 * time.Second

// watchTick is how often Supervise looks at what its child measures.
const watchTick = 250 * time.Millisecond

// Supervise runs a collect command in child processes, one after another,
// until one finishes: each child stops with status ExitMore after a bounded
// number of programs, the collection resumes from the rows on disk each
// time, and so no process lives long enough for the driver's per-program
// memory to add up. Each child measures the device's platform features
// itself (Options.NoBench unset) rather than being handed this process's:
// see engine.bench for why.
//
// A child reports each configuration before it measures it (see
// Options.Supervisor), so that a configuration that kills it is not
// measured again and again. A child killed by a fault signal (a
// segmentation fault in the kernel, say) or crashing in the Go runtime
// while it measures one gets that configuration recorded as a
// record.StatusCrash row, its error naming the signal; a child still at
// one configuration past the bound its timeouts and repeats set
// (a kernel that never finishes, a call that never returns) is killed,
// and the configuration recorded as a timeout. Either way another child
// goes on, and a rerun skips the row. A child whose kernel did not finish
// ends itself once it has recorded the timeout (ErrKernelStuck, status
// ExitMore). As Run does, Supervise stops after 5 timeouts in a row: the
// device looks hung.
//
// When ctx is cancelled the signal that cancelled it (see StopOnSignals;
// os.Interrupt otherwise) is passed on to the child, which stops between
// two configurations and keeps what it measured, and no new child starts;
// a child still measuring one StopGrace later is killed. On Linux the
// child is killed if this process dies without one (SIGKILL). A child
// that fails with any other non-zero status has reported why on its
// stderr: Supervise returns that status as an ExitStatus.
func Supervise(ctx context.Context, opt SuperviseOptions) error {
	exe := opt.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("collect: cannot start a measuring process: %w", err)
		}
	}
	grace := opt.stopGrace
	if grace == 0 {
		grace = StopGrace
	}
	stderr := opt.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	var w watch
	// lostBefore is the pair the last child lost was measuring: losing it
	// twice means its row did not keep the next child from it.
	var lostBefore string
	for {
		cmd := exec.Command(exe, opt.Args...)
		cmd.Stdout, cmd.Stderr = opt.Stdout, opt.Stderr
		// A child killed may leave a process it started holding its
		// output open; its output is not waited for past that.
		cmd.WaitDelay = time.Second
		dieWithParent(cmd)
		end, err := w.run(ctx, cmd, grace)
		if err != nil {
			return err
		}
		var exit *exec.ExitError
		code := 0
		if errors.As(end.err, &exit) {
			code = exit.ExitCode()
		}
		status, why, sig := record.Status(""), "", crashed(end.err)
		switch {
		case end.err == nil:
			return nil
		case ctx.Err() != nil && end.killed != "":
			return fmt.Errorf("collect: interrupted: the measuring process %s, and was killed; the rows measured are on disk", end.killed)
		case ctx.Err() != nil && code > 0:
			return ExitStatus(code)
		case ctx.Err() != nil:
			return fmt.Errorf("collect: measuring process: %w", end.err)
		case end.killed != "":
			status, why = record.StatusTimeout, fmt.Sprintf("the measuring process %s, and was killed", end.killed)
		case end.cur != nil && sig != "":
			status, why = record.StatusCrash, fmt.Sprintf("the measuring process died of %s while measuring it", sig)
		case code == ExitMore:
			if w.timeouts >= maxTimeoutsInRow {
				return fmt.Errorf("collect: %d configurations in a row did not finish; the device looks hung (last: %s)", w.timeouts, w.last)
			}
			continue
		case code > 0:
			return ExitStatus(code)
		default:
			return fmt.Errorf("collect: measuring process: %w%s", end.err, end.during())
		}
		if err := w.recordLost(end, status, why, lostBefore); err != nil {
			return err
		}
		lostBefore = end.cur.Name
		fmt.Fprintf(stderr, "collect: %s: %s; recorded as %s, and a new measuring process goes on\n", end.cur.Name, why, status)
		if w.timeouts >= maxTimeoutsInRow {
			return fmt.Errorf("collect: %d configurations in a row did not finish; the device looks hung (last: %s)", w.timeouts, w.last)
		}
	}
}

// recordLost records a row of status st, with why as its error, for the
// pair a child was measuring when it ended; lostBefore is the pair the
// last child lost was measuring. The error is for a pair whose row is not
// the child's to write, or that was lost before (its row did not keep the
// next child from it), and for a row that could not be written.
func (w *watch) recordLost(end childEnd, st record.Status, why, lostBefore string) error {
	switch cur := end.cur; {
	case end.file == nil:
		return fmt.Errorf("collect: measuring process: %w while measuring %s, before it said where its rows go", end.err, cur.Name)
	case !cur.Record:
		return fmt.Errorf("collect: measuring process: %w while measuring %s, whose row is not this run's to write (a reference run again for its outputs, or another shard's)", end.err, cur.Name)
	case cur.Name == lostBefore:
		return fmt.Errorf("collect: measuring process: %w while measuring %s again, recorded as %s the first time", end.err, cur.Name, st)
	}
	return w.lost(st, why)
}

// childEnd is how a measuring child ended.
type childEnd struct {
	// err is the child's exit error, nil when it exited 0.
	err error
	// killed says why Supervise killed it; "" when it did not.
	killed string
	// cur is the pair it was measuring, nil when none; file where it
	// wrote its rows, nil before it said.
	cur  *inFlight
	file *reportFile
}

// during names the pair being measured, for an error message.
func (e childEnd) during() string {
	if e.cur == nil {
		return ", with no configuration being measured"
	}
	return " while measuring " + e.cur.Name
}

// run starts cmd with a report pipe on SupervisorFD, follows its report
// and waits for it to end. It passes the cause of ctx on to it as a signal
// (os.Interrupt by default), and kills it when it measures one pair for
// longer than the pair's bound, or for longer than grace after the signal.
// The error is for a child that could not start.
func (w *watch) run(ctx context.Context, cmd *exec.Cmd, grace time.Duration) (childEnd, error) {
	r, pw, err := os.Pipe()
	if err != nil {
		return childEnd{}, fmt.Errorf("collect: cannot start a measuring process: %w", err)
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{pw} // SupervisorFD
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return childEnd{}, fmt.Errorf("collect: cannot start a measuring process: %w", err)
	}
	w.start()
	read := make(chan struct{})
	go func() {
		defer close(read)
		w.read(r)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	tick := time.NewTicker(watchTick)
	defer tick.Stop()
	done := ctx.Done()
	var signalled time.Time
	var killed string
	for {
		select {
		case err := <-waited:
			// What the child wrote before it ended is in the pipe; read it
			// all, but without waiting for a process the child started,
			// which may hold the pipe open.
			r.SetReadDeadline(time.Now().Add(time.Second))
			<-read
			w.mu.Lock()
			end := childEnd{err: err, killed: killed, cur: w.cur, file: w.file}
			w.mu.Unlock()
			return end, nil
		case <-done:
			done = nil
			sig := os.Signal(os.Interrupt)
			var s signalCause
			if errors.As(context.Cause(ctx), &s) {
				sig = s.sig
			}
			cmd.Process.Signal(sig)
			signalled = time.Now()
		case now := <-tick.C:
			cur, since := w.current()
			switch {
			case killed != "" || cur == nil:
			case !signalled.IsZero() && now.Sub(signalled) >= grace:
				killed = fmt.Sprintf("was still measuring %s %v after the signal", cur.Name, grace)
			case now.Sub(since) >= time.Duration(cur.BoundMs)*time.Millisecond:
				killed = fmt.Sprintf("was still measuring it %v after it began, past the bound of its timeouts and repeats",
					time.Duration(cur.BoundMs)*time.Millisecond)
			}
			if killed != "" {
				cmd.Process.Kill()
			}
		}
	}
}

// crashed names the fault signal err, a child's exit error, says the child
// died of, or says that it crashed in the Go runtime (exit status 2); it
// returns "" for any other end, a signal sent to stop it (SIGKILL,
// SIGTERM) included: that may be the operating system's or a user's, and
// says nothing of what the child measured.
func crashed(err error) string {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return ""
	}
	if exit.ExitCode() == 2 {
		return "a fatal error (exit status 2; its stderr says which)"
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	name, ok := faultSignals[ws.Signal()]
	if !ok {
		return ""
	}
	return fmt.Sprintf("signal %s (%v)", name, ws.Signal())
}

// faultSignals are the signals a process gets for its own fault, by name.
var faultSignals = map[syscall.Signal]string{
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL",
	syscall.SIGFPE: "SIGFPE", syscall.SIGABRT: "SIGABRT", syscall.SIGTRAP: "SIGTRAP",
}

// signalCause is the cause of a context cancelled by StopOnSignals.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return fmt.Sprintf("received %v", s.sig) }

// StopOnSignals returns a context cancelled by SIGINT, SIGTERM or SIGHUP,
// with the signal as its cause: a pre-empted or hung-up job then stops
// between two configurations and keeps what it measured. The
// configuration being measured is given up within StopGrace, even when its
// kernel never finishes (Supervise kills a child that has not given it up
// by then). The builds in flight are waited for, which a GPU driver may
// take minutes over (NVIDIA built some stencil programs for over 4
// minutes), so it says so on stderr, and a second signal ends the process
// at once with status 128 +
// the signal's number: every row measured is on disk already (a partial
// file the next run recovers), and on Linux the measuring child dies with
// its parent. A signal within SignalEcho of the first counts as the same
// one: timeout(1) signals its command and then the command's process
// group, and a terminal's Ctrl-C reaches a measuring child both from its
// process group and from Supervise. The returned function stops
// listening; call it when the collection has ended.
func StopOnSignals(parent context.Context, stderr io.Writer) (context.Context, func()) {
	return stopOnSignals(parent, stderr, SignalEcho, os.Exit)
}

// SignalEcho is how soon after a first signal another counts as the same
// one (StopOnSignals): the copies above arrive within milliseconds.
const SignalEcho = 500 * time.Millisecond

// stopOnSignals is StopOnSignals with the function that ends the process.
func stopOnSignals(parent context.Context, stderr io.Writer, echo time.Duration, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var first time.Time
		select {
		case s := <-sigs:
			first = time.Now()
			cancel(signalCause{s})
			fmt.Fprintf(stderr, "collect: %v: stopping once the programs being built are done; the configuration being measured is given up within %v, even if its kernel never finishes; a second signal stops at once\n", s, StopGrace)
		case <-finished:
			return
		}
		for {
			select {
			case s := <-sigs:
				if time.Since(first) < echo {
					continue // the same signal, heard twice
				}
				fmt.Fprintf(stderr, "collect: %v again: stopping now; the rows measured are on disk\n", s)
				code := 1
				if n, ok := s.(syscall.Signal); ok {
					code = 128 + int(n)
				}
				exit(code)
				return
			case <-finished:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(errors.New("collect finished"))
		close(finished)
		<-done
	}
}

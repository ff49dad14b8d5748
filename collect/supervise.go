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
	// CLI's `collect ... --max-programs N --max-growth M`).
	Args []string
	// Stdout and Stderr receive the child's output; nil discards it.
	Stdout, Stderr io.Writer
}

// Supervise runs a collect command in child processes, one after another,
// until one finishes: each child stops with status ExitMore after a bounded
// number of programs, the collection resumes from the rows on disk each
// time, and so no process lives long enough for the driver's per-program
// memory to add up. Each child measures the device's platform features
// itself (Options.NoBench unset) rather than being handed this process's:
// see engine.bench for why.
//
// When ctx is cancelled the signal that cancelled it (see StopOnSignals;
// os.Interrupt otherwise) is passed on to the child, which stops between
// two configurations and keeps what it measured, and no new child starts.
// On Linux the child is killed if this process dies without one
// (SIGKILL). A child that fails with any other non-zero status has
// reported why on its stderr: Supervise returns that status as an
// ExitStatus.
func Supervise(ctx context.Context, opt SuperviseOptions) error {
	exe := opt.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("collect: cannot start a measuring process: %w", err)
		}
	}
	for {
		cmd := exec.Command(exe, opt.Args...)
		cmd.Stdout, cmd.Stderr = opt.Stdout, opt.Stderr
		dieWithParent(cmd)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("collect: cannot start a measuring process: %w", err)
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		var err error
		select {
		case err = <-waited:
		case <-ctx.Done():
			sig := os.Signal(os.Interrupt)
			var s signalCause
			if errors.As(context.Cause(ctx), &s) {
				sig = s.sig
			}
			cmd.Process.Signal(sig)
			err = <-waited
		}
		var exit *exec.ExitError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &exit) && exit.ExitCode() == ExitMore && ctx.Err() == nil:
			continue
		case errors.As(err, &exit) && exit.ExitCode() > 0:
			return ExitStatus(exit.ExitCode())
		default:
			return fmt.Errorf("collect: measuring process: %w", err)
		}
	}
}

// signalCause is the cause of a context cancelled by StopOnSignals.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return fmt.Sprintf("received %v", s.sig) }

// StopOnSignals returns a context cancelled by SIGINT, SIGTERM or SIGHUP,
// with the signal as its cause: a pre-empted or hung-up job then stops
// between two configurations and keeps what it measured. That waits for
// the builds in flight, which a GPU driver may take minutes over (NVIDIA
// built some stencil programs for over 4 minutes), so it says so on
// stderr, and a second signal ends the process at once with status 128 +
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
			fmt.Fprintf(stderr, "collect: %v: stopping once the configurations in flight are measured; a second signal stops at once\n", s)
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

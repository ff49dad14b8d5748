package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/collect"
)

func main() {
	// A command that stops cleanly on an interrupt (keeping what it
	// measured) gets it through ctx; any other is ended by it, as Unix
	// commands are: its outputs are written whole or not at all.
	ctx, stop := context.Background(), func() {}
	if len(os.Args) > 1 && handlesInterrupt(os.Args[1]) {
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
	}
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if code, ok := collect.ExitCode(err); ok {
		os.Exit(code)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "augur:", oneLine(err))
		os.Exit(exitStatus(err))
	}
}

// Exit statuses: a usage error (a bad or missing flag, an unknown command)
// exits with exitUsage, as the flag package and most Unix tools do, so that
// a script can tell "called wrongly" from "tried and failed" (exitFailure).
// A collect child stopped at its limit exits with collect.ExitMore (3).
const (
	exitFailure = 1
	exitUsage   = 2
)

// exitStatus is the status main exits with for err.
func exitStatus(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return exitUsage
	}
	return exitFailure
}

// usageError is a mistake in how augur was called, as opposed to a failure
// of what it was asked to do.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// noDevice is the usage error of a --device index beyond the n devices
// the machine has, worded as every command words it.
func noDevice(cmd string, index, n int) error {
	return usagef("%s: --device %d: no such device; the OpenCL devices are 0 to %d (augur devices lists them)", cmd, index, n-1)
}

// usagef returns a usageError with the message fmt.Errorf gives.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// oneLine keeps the first line of an error, so that a build log or a
// wrapped multi-line message never floods the terminal.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// interrupts marks a command that stops cleanly when ctx is
	// cancelled by an interrupt; the others are ended by it.
	interrupts bool
}

// handlesInterrupt reports whether the command name stops cleanly on an
// interrupt (command.interrupts).
func handlesInterrupt(name string) bool {
	for _, c := range commands() {
		if c.name == name {
			return c.interrupts
		}
	}
	return false
}

func commands() []command {
	return []command{
		{"devices", "list the OpenCL devices and their features", runDevices, true},
		{"kernels", "list the kernel families and their tuning spaces", runKernels, false},
		{"collect", "measure configurations of a kernel on a device into Arrow files", runCollect, true},
		{"import", "import other tuners' measurements into Arrow files", runImport, true},
		{"train", "train a surrogate model bundle from collected data", runTrain, false},
		{"choose", "choose a configuration for a shape from a model bundle", runChoose, false},
		{"export", "export a kernel's training rows as CSV for other tools", runExport, false},
		{"inspect", "summarize a model bundle and its models' feature importances", runInspect, false},
		{"tune", "tune one shape on a device with the two-stage tuner", runTune, true},
		{"eval", "evaluate models, strategies and the two-stage tuner on recorded data", runEval, false},
		{"quickstart", "collect, train and choose end to end on the first device", runQuickstart, true},
		{"keygen", "write a new key pair for signing bundles", runKeygen, false},
		{"sign", "sign a model bundle (a detached BUNDLE.sig)", runSign, false},
		{"recover", "make the rows of interrupted collects readable again", runRecover, false},
		{"verify", "check dataset files: checksums, rows against their space, duplicates", runVerify, true},
		{"version", "print augur's version, commit, Go version and bundle format", runVersion, false},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: augur <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'augur <command> --help' for a command's flags.")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return usagef("no command given")
	}
	switch args[0] {
	case "help":
		if len(args) > 1 { // augur help CMD: the command's flags
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return flag.ErrHelp
	case "-h", "--help", "-help":
		usage(stdout)
		return flag.ErrHelp
	case "--version", "-version":
		return runVersion(ctx, args[1:], stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	return usagef("unknown command %q (run 'augur --help')", args[0])
}

// flags returns a flag set that reports errors instead of exiting and
// prints its usage to stderr. Every command takes --quiet, which silences
// its progress on stderr (progressTo); errors are still printed.
func flags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("quiet", false, "print no progress on stderr (errors still go there)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: augur %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args and refuses positional arguments, so that a typo is an
// error and not silently ignored. Help asked for goes to stdout; usage
// after a mistake stays on the flag set's output (stderr).
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	// A mistake is one line (the usage would bury it); help goes to stdout.
	fs.SetOutput(io.Discard)
	helpTo(fs, args, stdout)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%s: %v (augur %s --help lists the flags)", fs.Name(), err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// visited reports whether the flag name was given.
func visited(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// required returns an error naming the first empty flag among names.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return usagef("%s: --%s is required", fs.Name(), n)
		}
	}
	return nil
}

// helpTo sends fs's usage to stdout when args ask for help.
func helpTo(fs *flag.FlagSet, args []string, stdout io.Writer) {
	for _, a := range args {
		if a == "--" {
			return
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(stdout)
			return
		}
	}
}

// deprecatedAlias registers old as a spelling of the flag new that still
// works for one release and prints one line on stderr when used.
func deprecatedAlias(fs *flag.FlagSet, old, new string, stderr io.Writer) {
	f := fs.Lookup(new)
	fs.Var(aliasValue{f.Value, func() {
		fmt.Fprintf(stderr, "augur %s: --%s is deprecated and will be removed after v0.2; use --%s\n", fs.Name(), old, new)
	}}, old, "deprecated spelling of --"+new)
}

// aliasValue sets the flag it stands for and says so.
type aliasValue struct {
	flag.Value
	warn func()
}

// String is "": an alias has no value of its own, and the usage prints
// the default once, at the flag it stands for. (The flag package also calls
// String on the zero aliasValue, whose embedded Value is nil.)
func (aliasValue) String() string { return "" }

func (a aliasValue) Set(s string) error {
	a.warn()
	return a.Value.Set(s)
}

// deviceFlag is a --device of a command that runs OpenCL: an index as
// 'augur devices' lists them, or a device's name or slug.
type deviceFlag struct{ index *int }

func (f deviceFlag) String() string {
	if f.index == nil || *f.index < 0 {
		return "" // -1 is "every device", which the usage says
	}
	return strconv.Itoa(*f.index)
}

func (f deviceFlag) Set(s string) error {
	i, err := collect.DeviceIndex(s)
	if err != nil {
		// The flag package names the command and the flag already.
		return errors.New(strings.TrimPrefix(err.Error(), "collect: "))
	}
	*f.index = i
	return nil
}

// addDeviceFlag registers --device into index, whose value is the default.
func addDeviceFlag(fs *flag.FlagSet, index *int, usage string) {
	fs.Var(deviceFlag{index}, "device", usage+"; an index (see 'augur devices') or a device's name or slug")
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/augur-tuning/augur/collect"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
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
		os.Exit(1)
	}
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
}

func commands() []command {
	return []command{
		{"devices", "list the OpenCL devices and their features", runDevices},
		{"kernels", "list the kernel families and their tuning spaces", runKernels},
		{"collect", "measure configurations of a kernel on a device into Arrow files", runCollect},
		{"import", "import other tuners' measurements into Arrow files", runImport},
		{"train", "train a surrogate model bundle from collected data", runTrain},
		{"choose", "choose a configuration for a shape from a model bundle", runChoose},
		{"export", "export a kernel's training rows as CSV for other tools", runExport},
		{"inspect", "summarize a model bundle and its models' feature importances", runInspect},
		{"tune", "tune one shape on a device with the two-stage tuner", runTune},
		{"eval", "evaluate models, strategies and the two-stage tuner on recorded data", runEval},
		{"quickstart", "collect, train and choose end to end on the first device", runQuickstart},
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
		return errors.New("no command given")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return flag.ErrHelp
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	return fmt.Errorf("unknown command %q (run 'augur --help')", args[0])
}

// flags returns a flag set that reports errors instead of exiting and
// prints its usage to stderr.
func flags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
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
	helpTo(fs, args, stdout)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// required returns an error naming the first empty flag among names.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return fmt.Errorf("%s: --%s is required", fs.Name(), n)
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

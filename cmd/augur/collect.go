package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

func runCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		kr                                                kernelRef
		out, shapes, sample, compression                  string
		perProcess, growthMiB, maxGrowthMiB, supervisorFD int
		opt                                               collect.Options
	)
	fs := flags("collect", "--kernel NAME|--spec FILE --out DIR [--device N|NAME] [--shapes 'k=v,...;...'|FILE] [--sample all|random:N|random-each:N|refine:K|grid|none] [--repeats R] [--seed S] [--timeout D] [--warm-up D] [--confirm N [--confirm-repeats R] [--confirm-anchors A] [--confirm-picks FILE]] [--compression zstd|none] [--shard I/N] [--where EXPR] [--programs-per-process N] [--memory-per-process MIB] [--quiet]", stderr)
	addKernelFlags(fs, &kr, "kernel family")
	fs.StringVar(&out, "out", "", "dataset directory; files go to DIR/<kernel>/<device>/")
	addDeviceFlag(fs, &opt.Device, "device to measure on")
	fs.StringVar(&shapes, "shapes", "", "shapes separated by ';', or a file of them, one or more a line ('#' comments) (default: the kernel's own list); repeats are measured once")
	fs.StringVar(&sample, "sample", "random:100", "configurations per shape: all (in a seeded order), random:N (the same N for every shape), random-each:N (N drawn anew for each shape: together they cover more of the space, at the cost of more builds), refine:K (after a sampled run: the configurations one parameter away from each shape's K fastest recorded, that the shape has not measured), grid (the kernel's hand-chosen points, e.g. fbcorr's 73), or none (no first pass: with --confirm, time again what --out already holds)")
	fs.IntVar(&opt.Repeats, "repeats", collect.DefaultRepeats, "timed runs per configuration, after the warm-up (>= 1)")
	fs.DurationVar(&opt.WarmUp, "warm-up", collect.DefaultWarmUp, "device time each configuration runs untimed, back to back, before its timed runs (its verified first run included; 0: the first run only)")
	var co collect.ConfirmOptions
	fs.IntVar(&co.Top, "confirm", 0, "then time each shape's N fastest configurations again with --confirm-repeats (0: no second pass)")
	fs.IntVar(&co.Repeats, "confirm-repeats", 0, "timed runs of the second pass (0: three times --repeats)")
	fs.IntVar(&co.Anchors, "confirm-anchors", 4, "with --confirm: also time again this many random rows a shape, whose new times over their first tell whether the device runs slower or faster than at the first pass (it warns beyond 3%)")
	picks := fs.String("confirm-picks", "", "with --confirm: also time again the picks and candidates of this device's held-out shapes in FILE, the JSON of 'augur eval --holdout shapes --json', so that they are judged by timings as good as the optimum's")
	fs.Float64Var(&co.MaxCV, "confirm-cv", 0, "with --confirm: also time again every row whose coefficient of variation exceeds this (0: none)")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed of the random sample and the input data")
	fs.DurationVar(&opt.Timeout, "timeout", collect.DefaultTimeout, "longest one kernel run may take; a run still going is abandoned and recorded as a timeout")
	fs.StringVar(&compression, "compression", string(record.CompressionZstd), "codec of the files' record batches: zstd, or none for readers without codecs (Arrow JS)")
	fs.IntVar(&perProcess, "programs-per-process", collect.DefaultProgramsPerProcess, "measure in child processes that each stop after this many programs or --memory-per-process of growth, so that memory stays flat (OpenCL drivers keep every program's state until the process ends); 0: all in this process")
	fs.IntVar(&growthMiB, "memory-per-process", collect.DefaultGrowthMiB, "MiB of resident memory a child may grow by before it stops (Linux)")
	fs.IntVar(&opt.MaxPrograms, "max-programs", 0, "stop after building this many programs, with exit status 3 (what --programs-per-process gives each child)")
	fs.IntVar(&maxGrowthMiB, "max-growth", 0, "stop once resident memory has grown by this many MiB, with exit status 3 (what --memory-per-process gives each child)")
	fs.IntVar(&supervisorFD, "supervisor-fd", 0, "report each configuration, before it is measured, on this file descriptor to the collect that started this one, which records a configuration that kills or wedges the process and starts another (what --programs-per-process gives each child)")
	fs.StringVar(&opt.Where, "where", "", "measure only configurations for which this expression over the parameters is true (e.g. 'WX * WY * WZ <= 256'); the space and kernel version stay the same")
	shard := fs.String("shard", "", "I/N: measure only shard I (0 <= I < N) of the shapes x configurations, for N processes sharing the work; their files merge under one --out")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := kr.check("collect"); err != nil {
		return err
	}
	if err := required(fs, "out"); err != nil {
		return err
	}
	if err := collectLimits(&opt, co, *shard, compression, perProcess, growthMiB, maxGrowthMiB, supervisorFD); err != nil {
		return usageError{err}
	}
	child := perProcess > 0 && (opt.MaxPrograms > 0 || opt.MaxGrowthBytes > 0)
	if child {
		kr.warn = io.Discard // a child: its supervisor warned once
	}
	k, err := kr.kernel("collect")
	if err != nil {
		return err
	}
	for name, v := range map[string]string{"shapes": shapes, "sample": sample} {
		if v == "" && visited(fs, name) {
			return usagef("collect: --%s is empty", name)
		}
	}
	if shapes != "" {
		// Not standard input: the measuring child processes read --shapes again.
		list, err := readShapes("collect: --shapes", shapes, nil)
		if err != nil {
			return err
		}
		if opt.Tasks, err = parseShapes(k, strings.Join(list, ";")); err != nil {
			return usageError{fmt.Errorf("collect: --shapes: %w", err)}
		}
	}
	if *picks != "" {
		if co.Top == 0 {
			return usagef("collect: --confirm-picks needs --confirm N: it adds to the second pass")
		}
		if co.Also, err = judgedConfigs(*picks, k, opt.Device); err != nil {
			return err
		}
	}
	if err := co.Check(); err != nil {
		return usageError{err}
	}
	if co.Top == 0 {
		var without []string
		fs.Visit(func(f *flag.Flag) {
			if strings.HasPrefix(f.Name, "confirm-") {
				without = append(without, "--"+f.Name)
			}
		})
		if len(without) > 0 {
			return usagef("collect: %s needs --confirm N: it sets the second pass", strings.Join(without, ", "))
		}
	}
	confirmOnly := sample == "none"
	if confirmOnly && co.Top == 0 {
		return usagef("collect: --sample none measures nothing by itself: add --confirm N to time each recorded shape's N fastest configurations again")
	}
	if !confirmOnly {
		if collect.CheckSample(sample) != nil {
			return usagef("collect: --sample %q: want all, grid, random:N, random-each:N, refine:K (N, K >= 1), or none with --confirm", sample)
		}
		opt.Sample = sample
	}
	opt.Progress = progressTo(fs, stderr)
	opt.Log = stderr
	// A measuring child hears the interrupt too; its supervisor says
	// what happens, once.
	sigOut := stderr
	if child {
		sigOut = io.Discard
	}
	ctx, stop := collect.StopOnSignals(ctx, sigOut)
	defer stop()
	if confirmOnly {
		return confirm(ctx, k, out, opt, co, stdout)
	}
	if perProcess > 0 && opt.MaxPrograms == 0 && opt.MaxGrowthBytes == 0 {
		if err := collect.Check(k, opt); err != nil {
			return err
		}
		// Each child stops after perProcess programs or growthMiB of
		// growth with collect.ExitMore, and the next resumes from disk.
		child := append([]string{"collect"}, args...)
		child = append(child, "--max-programs", strconv.Itoa(perProcess), "--max-growth", strconv.Itoa(growthMiB),
			"--supervisor-fd", strconv.Itoa(collect.SupervisorFD))
		return collect.Supervise(ctx, collect.SuperviseOptions{Args: child, Stdout: stdout, Stderr: stderr})
	}
	if supervisorFD > 0 {
		opt.Supervisor = os.NewFile(uintptr(supervisorFD), "supervisor")
	}
	sum, err := collect.Run(ctx, k, out, opt)
	if sum != nil {
		fmt.Fprintln(stdout, sum)
	}
	if errors.Is(err, collect.ErrKernelStuck) && !errors.Is(err, collect.ErrReferenceFailed) {
		// The configuration is recorded; the process cannot go on.
		if supervisorFD > 0 {
			fmt.Fprintf(stderr, "%v; a new measuring process goes on\n", err)
			return collect.ExitStatus(collect.ExitMore)
		}
		return fmt.Errorf("%w: run collect again to go on past it, or measure in child processes (--programs-per-process > 0, the default), which go on by themselves", err)
	}
	if err != nil || co.Top == 0 {
		return err
	}
	return confirm(ctx, k, out, opt, co, stdout)
}

// confirm runs collect's second pass over what out holds.
func confirm(ctx context.Context, k *datasets.Kernel, out string, opt collect.Options, co collect.ConfirmOptions, stdout io.Writer) error {
	opt.MaxPrograms, opt.MaxGrowthBytes = 0, 0 // the second pass builds few programs
	csum, err := collect.Confirm(ctx, k, out, opt, co)
	switch {
	case csum != nil && csum.Path != "":
		fmt.Fprintf(stdout, "confirmed: %s\n", csum)
	case err == nil:
		fmt.Fprintf(stdout, "confirmed nothing: no shape asked has rows left to time again under %s (each is confirmed once; --shapes names the shapes, by default %s's own)\n", out, k.Name)
	}
	return err
}

// collectLimits checks the numeric flags and applies --shard,
// --max-growth and --compression to opt.
func collectLimits(opt *collect.Options, co collect.ConfirmOptions, shard, compression string, perProcess, growthMiB, maxGrowthMiB, supervisorFD int) error {
	var err error
	if shard != "" {
		s, err := collect.ParseShard(shard)
		if err != nil {
			return err
		}
		if co.Top > 0 {
			// Every shard would re-time the same fastest configurations.
			return fmt.Errorf("collect: --confirm with --shard: confirm once, without --shard, after every shard has finished")
		}
		opt.Shard = s
	}
	// The zero value of collect.Options.Repeats means the default, so the
	// flag rejects 0 itself rather than have it silently mean 5.
	if opt.Repeats < 1 {
		return fmt.Errorf("collect: --repeats must be >= 1, got %d", opt.Repeats)
	}
	// Likewise a zero warm-up means the default to the library.
	switch {
	case opt.WarmUp < 0:
		return fmt.Errorf("collect: --warm-up must be >= 0, got %v", opt.WarmUp)
	case opt.WarmUp == 0:
		opt.WarmUp = -1
	}
	for name, v := range map[string]int{"programs-per-process": perProcess, "memory-per-process": growthMiB, "max-programs": opt.MaxPrograms, "max-growth": maxGrowthMiB, "supervisor-fd": supervisorFD} {
		if v < 0 {
			return fmt.Errorf("collect: --%s must be >= 0, got %d", name, v)
		}
	}
	opt.MaxGrowthBytes = int64(maxGrowthMiB) << 20
	if opt.Timeout <= 0 {
		return fmt.Errorf("collect: --timeout must be > 0, got %v", opt.Timeout)
	}
	if opt.Compression, err = record.ParseCompression(compression); err != nil {
		return fmt.Errorf("collect: --compression must be zstd or none, got %q", compression)
	}
	return nil
}

// judgedConfigs reads the picks and candidates of augur eval's JSON report
// at path for the held-out shapes of device.
func judgedConfigs(path string, k *datasets.Kernel, device int) (map[features.TaskKey][]features.Config, error) {
	devs, err := collect.ListDevices()
	if err != nil {
		return nil, err
	}
	if device >= len(devs) {
		return nil, noDevice("collect", device, len(devs))
	}
	also, err := eval.ReadJudged(path, devs[device].Slug(), k)
	if err != nil {
		return nil, fmt.Errorf("collect: --confirm-picks: %w", err)
	}
	return also, nil
}

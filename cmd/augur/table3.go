package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

// table3Flags are eval's flags for Garvey and Abdelrahman's Table 3.
type table3Flags struct {
	on         bool
	random     int
	technique  string
	classifier string
}

func (t *table3Flags) register(fs interface {
	BoolVar(*bool, string, bool, string)
	IntVar(*int, string, int, string)
	StringVar(*string, string, string, string)
}) {
	fs.BoolVar(&t.on, "table3", false, "print Garvey and Abdelrahman's Table 3 instead: random sampling, the grouped heuristics and their oracles replayed per shape (on by default for --kernel stencil)")
	fs.IntVar(&t.random, "random", 1000, "with --table3: configurations random sampling measures")
	fs.StringVar(&t.classifier, "classifier", "", "with --table3: pick each shape's technique with augur's forest classifier trained on this dataset directory's groups, leaving out every shape of the same kernel (as 'augur train --target' scores it); replaces --technique")
	fs.StringVar(&t.technique, "technique", "best", "with --table3: the technique the heuristics hold, 'best' (that of each shape's fastest recorded configuration) or a value held on every shape")
}

// runTable3 replays Table 3 over the recorded data of kernel under data.
func runTable3(data, kernel string, t table3Flags, seed uint64, asJSON bool, stdout, stderr io.Writer) error {
	roles, err := eval.KernelRoles(kernel)
	if err != nil {
		return err // eval's errors carry the package prefix
	}
	opt := eval.Table3Options{Kernel: kernel, Technique: roles.Technique, Dims: roles.Dims,
		RandomSample: t.random, Seed: seed, Progress: stderr}
	switch {
	case t.classifier != "":
		l, err := eval.LoadLeaveOneOut(t.classifier, kernel, seed)
		if err != nil {
			return err // eval's and train's errors carry their package prefix
		}
		opt.Classifier = l
		opt.TechniqueBy = fmt.Sprintf("the pick of a forest classifier trained on %s (%d groups) without the shape's kernel", t.classifier, l.Groups())
	case t.technique != "best":
		v, err := strconv.Atoi(t.technique)
		if err != nil {
			return fmt.Errorf("eval: --technique must be best or an integer, got %q", t.technique)
		}
		opt.Classifier = eval.ClassifierFunc(func(string, features.Platform, features.Task) (int, error) { return v, nil })
		opt.TechniqueBy = fmt.Sprintf("%d on every shape", v)
	}
	rep, err := eval.Table3(data, opt)
	if err != nil {
		return err
	}
	if asJSON {
		return writeIndentedJSON(stdout, rep)
	}
	return writeTable3Text(stdout, rep)
}

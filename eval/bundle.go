package eval

import (
	"fmt"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// Bundle is `augur train` as one library call: it trains the surrogate
// models on d (train.TrainData with opt), gives the bundle the definition
// of a kernel read from a spec file (kernel may be nil, or one of augur's
// own, which the runtime knows), and, when d holds two devices or more,
// chooses, for each device, between its own model and the fleet model by
// leaving each shape out of every device in turn (train.ChoosePool with
// pool, whose zero value scores only the devices whose choice the figures
// can change), and the bundle's policy for devices it has no model of by
// leaving each device out in turn (ChooseUnseen), and for each device
// whether it copies another device's best at a shape only that device
// measured (ChooseSiblings). The report of ChooseUnseen is nil with one
// device.
func Bundle(d *train.Data, opt train.Options, kernel *datasets.Kernel, pool train.PoolOptions) (*features.Bundle, *train.Report, *UnseenReport, error) {
	b, rep, err := train.TrainData(d, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	if kernel != nil {
		if err := kernel.Attach(b); err != nil {
			return nil, nil, nil, fmt.Errorf("eval: %w", err)
		}
	}
	if len(rep.Platforms) < 2 {
		return b, rep, nil, nil
	}
	if opt.Progress != nil {
		opt.Progress(0, 0, "choosing between each device's own model and the fleet model (each shape left out of every device in turn)")
	}
	if err := train.ChoosePool(b, d, rep, pool); err != nil {
		return nil, nil, nil, err
	}
	if opt.Progress != nil {
		opt.Progress(0, 0, "choosing the policy for unseen devices (each device left out in turn)")
	}
	unseen, err := ChooseUnseen(b, d, rep.Models[len(rep.Models)-1]) // the fleet model's
	if err != nil {
		return nil, nil, nil, err
	}
	if opt.Progress != nil {
		opt.Progress(0, 0, "choosing, for each device, whether to copy another device's best at a shape only that device measured")
	}
	if err := ChooseSiblings(b, d); err != nil {
		return nil, nil, nil, err
	}
	return b, rep, unseen, nil
}

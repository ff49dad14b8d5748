package main

import (
	"os"
	"runtime/debug"

	"github.com/augur-tuning/augur/train"
)

// setMemoryLimit sets the Go runtime's soft memory limit for training on d
// to train.MemoryLimit(d), unless the environment's GOMEMLIMIT sets one
// ("off" for none): the collector then keeps training's peak near what it
// holds live instead of letting the heap grow to twice that.
func setMemoryLimit(d *train.Data) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(train.MemoryLimit(d))
	}
}

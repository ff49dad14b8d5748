package runtime

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/search"
)

// Options tune a Chooser. The zero value is Bergstra's HC75 on the bundle's
// only (or fleet) model.
type Options struct {
	// Model names the bundle's model to use: a platform slug or "fleet".
	// Empty picks the only model, or the fleet model.
	Model string
	// Steps is the number of hill-climbing steps; 0 means 75.
	Steps int
	// Restarts adds climbs from random configurations; 0 means none.
	Restarts int
	// Seed makes the climbs reproducible; each shape's climb is seeded
	// from Seed and the shape, so the same shape always gets the same
	// answer.
	Seed uint64
	// CacheSize bounds the per-shape cache; 0 means 4096 shapes. When it
	// is full the cache is emptied and refilled.
	CacheSize int
}

// Chooser picks configurations for shapes from one surrogate model.
type Chooser struct {
	bundle *features.Bundle
	space  *features.Space
	model  *predict.Model
	opt    Options

	// candidates are the model's starting points that are valid in the
	// space.
	candidates []features.Config

	mu    sync.RWMutex
	cache map[features.TaskKey]features.Config
}

// New loads a bundle from its bytes.
func New(bundle []byte, opt Options) (*Chooser, error) {
	b, err := features.ReadBundle(bundle)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return FromBundle(b, opt)
}

// FromBundle builds a Chooser over a parsed bundle.
func FromBundle(b *features.Bundle, opt Options) (*Chooser, error) {
	if opt.Steps < 0 || opt.Restarts < 0 || opt.CacheSize < 0 {
		return nil, fmt.Errorf("runtime: Steps, Restarts and CacheSize must be >= 0, got %d, %d, %d", opt.Steps, opt.Restarts, opt.CacheSize)
	}
	if opt.CacheSize == 0 {
		opt.CacheSize = 4096
	}
	space, err := b.Space()
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	m, err := predict.Load(b, opt.Model)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	ch := &Chooser{bundle: b, space: space, model: m, opt: opt, cache: map[features.TaskKey]features.Config{}}
	for _, e := range b.Models {
		if e.Name == m.Name {
			for _, cand := range e.Candidates {
				if space.Valid(cand) {
					ch.candidates = append(ch.candidates, cand)
				}
			}
		}
	}
	return ch, nil
}

// Space returns the kernel's tuning space; Configs follow its parameter
// order.
func (c *Chooser) Space() *features.Space { return c.space }

// Model returns the surrogate the Chooser climbs.
func (c *Chooser) Model() *predict.Model { return c.model }

// Reference returns the kernel's reference configuration.
func (c *Chooser) Reference() features.Config { return c.bundle.Reference }

// TaskNames returns the names of the shape features, in Task order.
func (c *Chooser) TaskNames() []string { return c.bundle.TaskNames }

// Choose returns the configuration predicted fastest for t. The result is
// shared with the cache: copy it before changing it.
func (c *Chooser) Choose(t features.Task) (features.Config, error) {
	key := t.Key()
	c.mu.RLock()
	cfg, ok := c.cache[key]
	c.mu.RUnlock()
	if ok && len(t) == len(c.bundle.TaskNames) {
		return cfg, nil
	}
	if err := c.model.Check(t, c.bundle.Reference); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	cfg, err := c.climb(t)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.cache) >= c.opt.CacheSize {
		clear(c.cache)
	}
	c.cache[key] = cfg
	c.mu.Unlock()
	return cfg, nil
}

// Predict returns the model's predicted speedup of cfg on t over the
// reference configuration, as a log.
func (c *Chooser) Predict(t features.Task, cfg features.Config) (float64, error) {
	if err := c.model.Check(t, cfg); err != nil {
		return 0, fmt.Errorf("runtime: %w", err)
	}
	return c.model.Predict(t, cfg), nil
}

func (c *Chooser) climb(t features.Task) (features.Config, error) {
	rng := rand.New(rand.NewPCG(c.opt.Seed, shapeSeed(t)))
	sc := c.model.Scorer(t)
	// Climb from the best of the reference and the model's candidates
	// (configurations that ran fastest on the training shapes), scored for
	// this shape.
	start, best := c.bundle.Reference, sc.Predict(c.bundle.Reference)
	for _, cand := range c.candidates {
		if v := sc.Predict(cand); v > best {
			start, best = cand, v
		}
	}
	hc := search.HillClimb{Steps: c.opt.Steps, Start: start, Restarts: c.opt.Restarts}
	res, err := hc.Search(c.space, func(cfg features.Config) (float64, error) {
		return sc.Predict(cfg), nil
	}, rng)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return res.Best, nil
}

// shapeSeed mixes a shape's values into a seed (splitmix64 steps), the same
// in every process, so that a shape's answer does not depend on the run.
func shapeSeed(t features.Task) uint64 {
	x := uint64(0x9e3779b97f4a7c15)
	for _, v := range t {
		x ^= uint64(v)
		x += 0x9e3779b97f4a7c15
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		x = (x ^ (x >> 27)) * 0x94d049bb133111eb
		x ^= x >> 31
	}
	return x
}

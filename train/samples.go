package train

import (
	"encoding/binary"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// sampleCols holds a Data's samples in columns: each row's task and
// configuration as an index into the distinct ones, its platform and its
// two times, 28 bytes a row where a []Sample took 72 (two slice headers,
// an int and two times). Rows of one task or configuration share one slice
// of it, as the loader always made them share.
type sampleCols struct {
	task, config      []uint32
	platform          []int32
	timeNs, refTimeNs []float64
	tasks             []features.Task
	configs           []features.Config
	// taskIndex and configIndex map a task's or configuration's key
	// (intsKey) to its index while rows are added; nil in columns made by
	// gather, which build them on their first add.
	taskIndex, configIndex map[string]uint32
}

// len is the number of rows.
func (c *sampleCols) len() int { return len(c.timeNs) }

// at returns row i's sample.
func (c *sampleCols) at(i int) Sample {
	return Sample{Task: c.tasks[c.task[i]], Config: c.configs[c.config[i]], Platform: int(c.platform[i]),
		TimeNs: c.timeNs[i], RefTimeNs: c.refTimeNs[i]}
}

// taskOf returns the index of task t, adding it when it is new.
func (c *sampleCols) taskOf(t features.Task) uint32 {
	return intern(&c.tasks, &c.taskIndex, t)
}

// configOf returns the index of configuration k, adding it when it is new.
func (c *sampleCols) configOf(k features.Config) uint32 {
	return intern(&c.configs, &c.configIndex, k)
}

// intern returns the index of v in *vals, appending v when it is new;
// *index maps the values' keys to their indexes and is built from *vals
// when nil.
func intern[S ~[]int](vals *[]S, index *map[string]uint32, v S) uint32 {
	if *index == nil {
		*index = make(map[string]uint32, len(*vals))
		for k, w := range *vals {
			(*index)[intsKey(w)] = uint32(k)
		}
	}
	key := intsKey(v)
	if k, ok := (*index)[key]; ok {
		return k
	}
	// A copy: v may be a view into a file's rows, which it would keep.
	k := uint32(len(*vals))
	*vals = append(*vals, slices.Clone(v))
	(*index)[key] = k
	return k
}

// intsKey is a map key of the values of v, each in 8 bytes.
func intsKey[S ~[]int](v S) string {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return string(b)
}

// push appends a row of sample s.
func (c *sampleCols) push(s Sample) {
	c.task = append(c.task, c.taskOf(s.Task))
	c.config = append(c.config, c.configOf(s.Config))
	c.platform = append(c.platform, int32(s.Platform))
	c.timeNs = append(c.timeNs, s.TimeNs)
	c.refTimeNs = append(c.refTimeNs, s.RefTimeNs)
}

// set gives row i the sample s.
func (c *sampleCols) set(i int, s Sample) {
	c.task[i], c.config[i] = c.taskOf(s.Task), c.configOf(s.Config)
	c.platform[i], c.timeNs[i], c.refTimeNs[i] = int32(s.Platform), s.TimeNs, s.RefTimeNs
}

// gather returns the columns of the given rows of c, in that order,
// sharing c's distinct tasks and configurations (an add to either copies
// them first).
func (c *sampleCols) gather(rows []int) sampleCols {
	g := sampleCols{tasks: slices.Clip(c.tasks), configs: slices.Clip(c.configs),
		task: make([]uint32, len(rows)), config: make([]uint32, len(rows)), platform: make([]int32, len(rows)),
		timeNs: make([]float64, len(rows)), refTimeNs: make([]float64, len(rows))}
	for j, i := range rows {
		g.task[j], g.config[j], g.platform[j] = c.task[i], c.config[i], c.platform[i]
		g.timeNs[j], g.refTimeNs[j] = c.timeNs[i], c.refTimeNs[i]
	}
	return g
}

// bytes is about the memory the columns take: the per-row columns and the
// distinct tasks and configurations.
func (c *sampleCols) bytes() int {
	n := 4*len(c.task) + 4*len(c.config) + 4*len(c.platform) + 8*len(c.timeNs) + 8*len(c.refTimeNs)
	for _, t := range c.tasks {
		n += 24 + 8*len(t)
	}
	for _, k := range c.configs {
		n += 24 + 8*len(k)
	}
	return n
}

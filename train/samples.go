package train

import (
	"encoding/binary"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// sampleCols holds a Data's samples in columns: each row's task,
// configuration and platform as an index into the distinct ones, each in
// a byte or two (indexCol), its time, and its reference time coded as the
// features are (codedCol: the reference is timed once a task and device,
// so a file's rows share a few values): 13 bytes a row on conv2d's data
// (tasks and platforms in a byte, configurations in two), where a []Sample
// took 72 (two slice headers, an int and two times). Rows of one task or
// configuration share one slice of it, as the loader always made them
// share.
type sampleCols struct {
	task, config, platform indexCol
	timeNs                 []float64
	refTimeNs              codedCol
	tasks                  []features.Task
	configs                []features.Config
	// taskIndex and configIndex map a task's or configuration's key
	// (intsKey) to its index while rows are added; nil in columns made by
	// gather, which build them on their first add.
	taskIndex, configIndex map[string]uint32
}

// key returns the column of keys k names: the rows' tasks, platforms or
// configurations; none for keyNone.
func (c *sampleCols) key(k sampleKey) indexCol {
	switch k {
	case keyTask:
		return c.task
	case keyPlatform:
		return c.platform
	case keyConfig:
		return c.config
	}
	return indexCol{}
}

// len is the number of rows.
func (c *sampleCols) len() int { return len(c.timeNs) }

// at returns row i's sample.
func (c *sampleCols) at(i int) Sample {
	return Sample{Task: c.tasks[c.task.code(i)], Config: c.configs[c.config.code(i)], Platform: int(c.platform.code(i)),
		TimeNs: c.timeNs[i], RefTimeNs: c.refTimeNs.value(i)}
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

// push appends a row of sample s, whose Platform must be in [0,
// math.MaxUint32] (Data.Append checks it).
func (c *sampleCols) push(s Sample) {
	c.task.push(c.taskOf(s.Task))
	c.config.push(c.configOf(s.Config))
	c.platform.push(uint32(s.Platform))
	c.timeNs = append(c.timeNs, s.TimeNs)
	c.refTimeNs.push(s.RefTimeNs)
}

// set gives row i the sample s.
func (c *sampleCols) set(i int, s Sample) {
	c.task.set(i, c.taskOf(s.Task))
	c.config.set(i, c.configOf(s.Config))
	c.platform.set(i, uint32(s.Platform))
	c.timeNs[i] = s.TimeNs
	c.refTimeNs.set(i, s.RefTimeNs)
}

// gather returns the columns of the given rows of c, in that order,
// sharing c's distinct tasks and configurations (an add to either copies
// them first).
func (c *sampleCols) gather(rows []int) sampleCols {
	g := sampleCols{tasks: slices.Clip(c.tasks), configs: slices.Clip(c.configs),
		task: c.task.gather(rows), config: c.config.gather(rows), platform: c.platform.gather(rows),
		timeNs: make([]float64, len(rows)), refTimeNs: c.refTimeNs.gather(rows, indexCol{})}
	for j, i := range rows {
		g.timeNs[j] = c.timeNs[i]
	}
	return g
}

// bytes is about the memory the columns take: the per-row columns and the
// distinct tasks and configurations.
func (c *sampleCols) bytes() int {
	n := c.task.bytes() + c.config.bytes() + c.platform.bytes() + 8*len(c.timeNs) + c.refTimeNs.bytes()
	for _, t := range c.tasks {
		n += 24 + 8*len(t)
	}
	for _, k := range c.configs {
		n += 24 + 8*len(k)
	}
	return n
}

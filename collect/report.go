package collect

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sync"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// A supervised process (Options.Supervisor) reports to Supervise, one JSON
// object a line: first where it writes its rows, then each pair before it
// is measured and again once its row is recorded. A process that dies
// (a kernel's segmentation fault) or is killed (a kernel that never
// finishes) has thus told its supervisor which pair it was measuring,
// and where a row for it goes; a pair that ends with a row has told it
// the row's status, by which it counts the timeouts in a row.

// report is one line of a supervised process's report.
type report struct {
	// File, on the first line, is where the process writes its rows.
	File *reportFile `json:"file,omitempty"`
	// Measure is the pair about to be measured.
	Measure *inFlight `json:"measure,omitempty"`
	// Ended says that the pair last named has ended; Status is the
	// status of its row, "" when it has none (the run was interrupted).
	Ended  bool          `json:"ended,omitempty"`
	Status record.Status `json:"status,omitempty"`
}

// reportFile is where a supervised process writes its rows: what
// Supervise needs to record a row for it.
type reportFile struct {
	Dir         string             `json:"dir"`
	Meta        record.Meta        `json:"meta"`
	Shard       Shard              `json:"shard"`
	Compression record.Compression `json:"compression"`
}

// inFlight is a pair being measured.
type inFlight struct {
	Task   features.Task   `json:"task"`
	Config features.Config `json:"config"`
	// Name is the pair as messages give it: "WG=16 EPT=8 on n=1000".
	Name string `json:"name"`
	// RefTimeNs and CompileMs go into a row recorded for it.
	RefTimeNs float64 `json:"ref_time_ns"`
	CompileMs float64 `json:"compile_ms"`
	// Record is false for a pair whose row is not the process's to
	// write: a reference run again for its outputs only, or one that
	// another shard records.
	Record bool `json:"record"`
	// BoundMs is the longest measuring it may take, in milliseconds
	// (engine.pairBound): a process at it for longer is wedged.
	BoundMs int64 `json:"bound_ms"`
}

// reporter tells what Run measures: to a supervising process
// (Options.Supervisor), when there is one, and in the directory's lock
// file, whose holder text names the pair being measured (DirLock.Doing)
// for a run that finds the lock of one that died measuring it. Its
// methods do nothing on a nil reporter, Measure's.
type reporter struct {
	w    io.Writer
	lock *record.DirLock
}

// send writes one line to the supervisor. A line that cannot be written
// is dropped: the supervisor is gone (and, on Linux, this process with
// it) or was never there, and the measurements go on without it.
func (r *reporter) send(rep report) {
	if r == nil || r.w == nil {
		return
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return // a NaN that JSON cannot hold: the line is lost, not the run
	}
	r.w.Write(append(b, '\n'))
}

// file reports where the rows go.
func (r *reporter) file(f reportFile) { r.send(report{File: &f}) }

// measure reports that e is about to measure p of g.
func (r *reporter) measure(e *engine, g *group, p pair) {
	if r == nil {
		return
	}
	name := e.k.FormatConfig(p.config) + " on " + features.FormatTask(e.k.TaskNames, p.task.shape)
	r.lock.Doing(measuringPrefix + name)
	r.send(report{Measure: &inFlight{
		Task: p.task.shape, Config: p.config, Name: name,
		RefTimeNs: p.task.refNs, CompileMs: g.compileMs,
		Record:  !p.outputsOnly && e.opt.Shard.Owns(p.task.shape, p.config),
		BoundMs: e.pairBound().Milliseconds(),
	}})
}

// measuringPrefix begins what the lock file says of the pair being
// measured.
const measuringPrefix = "measuring "

// ended reports that the pair last named has ended with a row of status
// st, or with none ("").
func (r *reporter) ended(st record.Status) {
	if r == nil {
		return
	}
	r.lock.Doing("")
	r.send(report{Ended: true, Status: st})
}

// pairBound is the longest measuring one pair may take: its verified run
// (twice, for a reference run again from its declared outputs), the
// warm-up and the timed runs each within Timeout, the wait for a kernel
// that timed out, and a minute for the transfers and the verification.
func (e *engine) pairBound() time.Duration {
	return 2*time.Duration(e.opt.Repeats+2)*e.opt.Timeout + max(e.opt.WarmUp, 0) + e.drainWait() + time.Minute
}

// watch is what Supervise learns from its children's reports.
type watch struct {
	mu sync.Mutex
	// file is where the current child writes its rows; nil until it says.
	file *reportFile
	// cur is the pair it measures, since when; nil between pairs.
	cur   *inFlight
	since time.Time
	// timeouts counts the pairs in a row, over children, whose rows are
	// timeouts; last names the last of them.
	timeouts int
	last     string
}

// start forgets the last child's file and pair.
func (w *watch) start() {
	w.mu.Lock()
	w.file, w.cur = nil, nil
	w.mu.Unlock()
}

// read follows a child's report until r ends. It reads to the end
// whatever it finds, so that the child never blocks on a full pipe.
func (w *watch) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		var rep report
		if len(line) > 0 && json.Unmarshal(line, &rep) == nil {
			w.note(rep)
		}
		if err != nil {
			return
		}
	}
}

// note takes in one line of a report.
func (w *watch) note(rep report) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case rep.File != nil:
		w.file = rep.File
	case rep.Measure != nil:
		w.cur, w.since = rep.Measure, time.Now()
	case rep.Ended:
		// Any other status ends the timeouts in a row, that of a
		// reference run again for its outputs only too: the device
		// still finishes kernels.
		switch {
		case w.cur == nil || rep.Status == "":
		case rep.Status == record.StatusTimeout:
			w.timeouts++
			w.last = w.cur.Name
		default:
			w.timeouts = 0
		}
		w.cur = nil
	}
}

// current returns the pair being measured and since when, or nil.
func (w *watch) current() (*inFlight, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur, w.since
}

// lost records a row of status st for the pair the last child was
// measuring when it ended, with why as its error, in a file of its own
// beside the child's; and counts it as the child would have.
func (w *watch) lost(st record.Status, why string) error {
	w.mu.Lock()
	file, cur := w.file, w.cur
	if st == record.StatusTimeout {
		w.timeouts++
		w.last = cur.Name
	} else {
		w.timeouts = 0
	}
	w.mu.Unlock()
	// The child held the directory's lock until it died; so does this
	// process while it writes.
	lock, err := record.LockDir(file.Dir, record.LockOptions{Shard: file.Shard.Index, Shards: file.Shard.Count})
	if err != nil {
		return err
	}
	defer lock.Unlock()
	meta := file.Meta
	meta.Created = time.Now().UTC()
	f := &runFile{dir: file.Dir, meta: meta, wopt: record.WriterOptions{Compression: file.Compression, FlushRows: 1},
		sum: &Summary{Counts: map[record.Status]int{}}, shard: file.Shard}
	r := record.Row{Task: cur.Task, Config: cur.Config, Status: st, RefTimeNs: cur.RefTimeNs,
		LogSpeedup: math.NaN(), CompileMs: cur.CompileMs, Error: why}
	return errors.Join(f.write(-1, r), f.close())
}

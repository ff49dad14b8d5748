package main

import (
	"bytes"
	"io"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// peakWatch keeps the heap profile of the moment the live heap was
// largest: after each garbage collection it sees (it looks every period),
// when the heap that collection found live exceeds every earlier one, it
// takes the heap profile, whose in-use figures are those of that
// collection. The peak RSS is about the live heap at the collector's
// largest mark plus the headroom GOGC lets the heap grow before the next.
type peakWatch struct {
	stop chan struct{}
	done sync.WaitGroup

	// Read after Stop.
	liveBytes uint64 // the largest live heap seen after a collection
	profile   bytes.Buffer
}

// startPeakWatch starts watching, every period.
func startPeakWatch(period time.Duration) *peakWatch {
	w := &peakWatch{stop: make(chan struct{})}
	w.done.Add(1)
	go w.loop(period)
	return w
}

func (w *peakWatch) loop(period time.Duration) {
	defer w.done.Done()
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	var cycles uint64
	pending := false
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		metrics.Read(s)
		c, live := s[0].Value.Uint64(), s[1].Value.Uint64()
		if c == cycles {
			continue
		}
		cycles = c
		// The profile's frees are counted as the heap is swept after a
		// collection, so the profile of the peak's collection is taken
		// again at the next one.
		if live > w.liveBytes || pending {
			pending = live > w.liveBytes
			w.liveBytes = max(w.liveBytes, live)
			w.profile.Reset()
			pprof.Lookup("heap").WriteTo(&w.profile, 0)
		}
	}
}

// Stop stops the watch and writes the profile of the peak to out.
func (w *peakWatch) Stop(out io.Writer) error {
	close(w.stop)
	w.done.Wait()
	_, err := out.Write(w.profile.Bytes())
	return err
}

package train

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// codedCol is one feature's values over a Data's rows, held without loss
// in about a byte a value, as histogram learners hold their data: the
// feature's distinct values, in the order first seen, and each row's
// index into them, in the narrowest of 1, 2 or 4 bytes that holds every
// index. Most features (the shape, the parameters, the device) have at
// most 256 distinct values; derived ones may have thousands.
//
// A fit bins its rows from the codes (binCoded): counting the codes of its
// rows gives the same sorted values and counts that sorting its column
// gave before, so its bins, thresholds and trees are the same as when
// every fit copied and sorted its own rows.
type codedCol struct {
	vals []float64
	// indexCol holds the rows' codes, or, in a keyed column, the rows'
	// keys (a copy of the Data's task or platform column, sharing its
	// memory), each standing for the code byKey[key].
	indexCol
	// byKey, when not nil, makes the column keyed: a feature of the task,
	// of the device or of the configuration alone (the shape's sizes, the
	// device's features, the parameters and what derives from them: 37 of
	// conv2d's 51 features) takes one value a task, device or
	// configuration, so its rows need no codes of their own. keyedBy says which of the Data's
	// sample columns the keys are. A keyed column becomes a plain one
	// before a row is added or changed (own).
	byKey   []uint32
	keyedBy sampleKey
	// index maps a value to its code while rows are added; nil in a column
	// made by gather, which builds its own on its first append.
	index map[float64]uint32
}

// sampleKey names a sample column a keyed codedCol's keys come from.
type sampleKey uint8

const (
	keyNone sampleKey = iota
	keyTask
	keyPlatform
	keyConfig
)

// code returns row i's index into vals.
func (c *codedCol) code(i int) uint32 {
	k := c.indexCol.code(i)
	if c.byKey != nil {
		return c.byKey[k]
	}
	return k
}

// value returns row i's value.
func (c *codedCol) value(i int) float64 { return c.vals[c.code(i)] }

// codeOf returns the code of v, adding v to the values when it is new.
func (c *codedCol) codeOf(v float64) uint32 {
	if c.index == nil {
		c.index = make(map[float64]uint32, len(c.vals))
		for k, w := range c.vals {
			c.index[w] = uint32(k)
		}
	}
	if k, ok := c.index[v]; ok {
		return k
	}
	k := uint32(len(c.vals))
	c.vals = append(c.vals, v)
	c.index[v] = k
	return k
}

// push appends a row of value v.
func (c *codedCol) push(v float64) {
	c.own()
	c.indexCol.push(c.codeOf(v))
}

// set gives row i the value v.
func (c *codedCol) set(i int, v float64) {
	c.own()
	c.indexCol.set(i, c.codeOf(v))
}

// own makes a keyed column a plain one, with a code a row of its own,
// which the keys' column may then change without it.
func (c *codedCol) own() {
	if c.byKey == nil {
		return
	}
	var own indexCol
	for i := range c.len() {
		own.push(c.code(i))
	}
	c.indexCol, c.byKey, c.keyedBy = own, nil, keyNone
}

// keyBy makes c a keyed column of the given keys (a sample column of the
// same rows, of about nKeys distinct keys) when every row of one key has
// the same code, and reports whether it did.
func (c *codedCol) keyBy(keys indexCol, by sampleKey, nKeys int) bool {
	if c.byKey != nil || keys.len() != c.len() {
		return false
	}
	const unset = math.MaxUint32
	byKey := make([]uint32, nKeys)
	for k := range byKey {
		byKey[k] = unset
	}
	for i := range c.len() {
		k, code := keys.code(i), c.code(i)
		for int(k) >= len(byKey) { // a key beyond nKeys, which was a hint
			byKey = append(byKey, unset)
		}
		switch byKey[k] {
		case unset:
			byKey[k] = code
		case code:
		default:
			return false
		}
	}
	for k := range byKey {
		if byKey[k] == unset {
			byKey[k] = 0 // a key no row has: never read
		}
	}
	c.indexCol, c.byKey, c.keyedBy = keys, byKey, by
	return true
}

// gather returns a column of the given rows of c, in that order, sharing
// c's values (an append to either copies them first). A keyed column's
// rows are keyed by keys, the gathered rows' sample column it is keyed by.
func (c *codedCol) gather(rows []int, keys indexCol) codedCol {
	g := codedCol{vals: c.vals[:len(c.vals):len(c.vals)]}
	if c.byKey != nil {
		g.indexCol, g.byKey, g.keyedBy = keys, c.byKey[:len(c.byKey):len(c.byKey)], c.keyedBy
		return g
	}
	g.indexCol = c.indexCol.gather(rows)
	return g
}

// bytes is the memory the column's codes and values take.
// A keyed column's keys are counted with the samples.
func (c *codedCol) bytes() int {
	if c.byKey != nil {
		return 4*len(c.byKey) + 8*len(c.vals)
	}
	return c.indexCol.bytes() + 8*len(c.vals)
}

// indexCol holds an index a row (a code, a task's or a configuration's
// number) in the narrowest of 1, 2 or 4 bytes that holds every index it
// has been given: one of u8, u16 and u32 is in use, u8 while the others
// are nil.
type indexCol struct {
	u8  []uint8
	u16 []uint16
	u32 []uint32
}

// len is the number of rows.
func (c *indexCol) len() int { return len(c.u8) + len(c.u16) + len(c.u32) }

// code returns row i's index.
func (c *indexCol) code(i int) uint32 {
	switch {
	case c.u16 != nil:
		return uint32(c.u16[i])
	case c.u32 != nil:
		return c.u32[i]
	}
	return uint32(c.u8[i])
}

// hold widens the indexes, when their width cannot hold k, to one that
// can, keeping the capacity.
func (c *indexCol) hold(k uint32) {
	if k <= math.MaxUint8 || c.u32 != nil || (k <= math.MaxUint16 && c.u16 != nil) {
		return
	}
	n, room := c.len(), max(cap(c.u8), cap(c.u16), 16)
	if k <= math.MaxUint16 {
		u16 := make([]uint16, n, room)
		for i, x := range c.u8 {
			u16[i] = uint16(x)
		}
		c.u8, c.u16 = nil, u16
		return
	}
	u32 := make([]uint32, n, room)
	for i := range u32 {
		u32[i] = c.code(i)
	}
	c.u8, c.u16, c.u32 = nil, nil, u32
}

// push appends a row of index k.
func (c *indexCol) push(k uint32) {
	c.hold(k)
	switch {
	case c.u16 != nil:
		c.u16 = append(c.u16, uint16(k))
	case c.u32 != nil:
		c.u32 = append(c.u32, k)
	default:
		c.u8 = append(c.u8, uint8(k))
	}
}

// set gives row i the index k.
func (c *indexCol) set(i int, k uint32) {
	c.hold(k)
	switch {
	case c.u16 != nil:
		c.u16[i] = uint16(k)
	case c.u32 != nil:
		c.u32[i] = k
	default:
		c.u8[i] = uint8(k)
	}
}

// gather returns the indexes of the given rows of c, in that order, in
// c's width.
func (c *indexCol) gather(rows []int) indexCol {
	var g indexCol
	switch {
	case c.u16 != nil:
		g.u16 = make([]uint16, len(rows))
		for j, i := range rows {
			g.u16[j] = c.u16[i]
		}
	case c.u32 != nil:
		g.u32 = make([]uint32, len(rows))
		for j, i := range rows {
			g.u32[j] = c.u32[i]
		}
	default:
		g.u8 = make([]uint8, len(rows))
		for j, i := range rows {
			g.u8[j] = c.u8[i]
		}
	}
	return g
}

// bytes is the memory the indexes take.
func (c *indexCol) bytes() int { return len(c.u8) + 2*len(c.u16) + 4*len(c.u32) }

// fitSet is the training rows of one fit: a dense row-major matrix, or
// rows of a Data's coded columns, which no fit copies as float64s.
type fitSet struct {
	nFeat int
	// y holds the targets, one a row of the set.
	y []float64
	// x is the dense matrix, nil for a coded set.
	x []float64
	// cols are a Data's columns and rows the set's rows of them, in
	// order; nil rows are every row of the columns (a fit on all of a
	// Data needs no list of them).
	cols []codedCol
	rows []int
	// buf, when not nil, lends the fit its large buffers (see fitBuffers).
	buf *fitBuffers
	// keyedRows, when not 0, replaces keyedFitRows (tests set it).
	keyedRows int
}

// keyedFitRows is the fewest rows of a fit whose keyed features (those of
// the task, the device or the configuration alone) are binned by key
// (keyGroup), a row holding its keys instead of a byte a feature. Below
// it rows are binned a byte a feature: their bins fit in the caches, where
// reading through keys cost 20-35% more time a histogram pass
// (BenchmarkBuildHist, on testdata/h200's rows); at a million rows the
// pass by keys took as long or less (bench/RESULTS.md, session 17), and
// conv2d's fleet bins 22 bytes a row instead of 50.
const keyedFitRows = 1 << 18

// fitBuffers are the large buffers of one fit at a time: its rows' bins,
// residuals, predictions, row lists and targets, each about a row's worth.
// A caller that fits many times in turn (the folds of the selection, every
// candidate, the folds of the cross-validation) keeps one per concurrent
// fit, so that each fit reuses the memory of the last instead of leaving
// it to the collector, which lets the heap grow to about twice what is
// live before it runs. A fitted model keeps none of them.
type fitBuffers struct {
	bins         []uint8
	grad, pred   []float64
	y, target    []float64
	order, spare []int32
	rows         []int
	// done, when closed, stops the fits the buffers are lent to at
	// their next tree (Options.Context); nil never does.
	done <-chan struct{}
}

// errStopped is what a fit returns when its buffers' done is closed; the
// run that closed it reports its context's error instead.
var errStopped = errors.New("train: stopped")

// stopped reports whether the fits lent f must stop.
func (f *fitBuffers) stopped() bool {
	if f == nil || f.done == nil {
		return false
	}
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// dropBoosting lets the collector have the buffers that only boosting
// uses (residuals, predictions and transformed targets), before a fit
// that uses none of them; a later boosted fit makes them again.
func (f *fitBuffers) dropBoosting() {
	if f != nil {
		f.grad, f.pred, f.target = nil, nil, nil
	}
}

// reuse returns a zeroed slice of n elements in *p's memory when it has
// room, else a new one, kept in *p for the next caller. A nil p (no
// buffers) always makes a new slice.
func reuse[T any](p *[]T, n int) []T {
	if p == nil {
		return make([]T, n)
	}
	if cap(*p) < n {
		*p = make([]T, n)
	}
	s := (*p)[:n]
	clear(s)
	return s
}

// The buffers of a fit on a nil *fitBuffers are made anew.
func (f *fitBuffers) binsOf(n int) []uint8 {
	if f == nil {
		return make([]uint8, n)
	}
	return reuse(&f.bins, n)
}

func (f *fitBuffers) gradOf(n int) []float64 {
	if f == nil {
		return make([]float64, n)
	}
	return reuse(&f.grad, n)
}

func (f *fitBuffers) predOf(n int) []float64 {
	if f == nil {
		return make([]float64, n)
	}
	return reuse(&f.pred, n)
}

// rowsOf and scratchOf are the builder's two row lists.
func (f *fitBuffers) rowsOf(n int) []int32 {
	if f == nil {
		return make([]int32, n)
	}
	return reuse(&f.order, n)
}

func (f *fitBuffers) scratchOf(n int) []int32 {
	if f == nil {
		return make([]int32, n)
	}
	return reuse(&f.spare, n)
}

// denseSet is the fitSet of a row-major matrix x of nFeat columns.
func denseSet(x []float64, nFeat int, y []float64) fitSet {
	return fitSet{nFeat: nFeat, y: y, x: x}
}

// len is the number of rows.
func (s fitSet) len() int { return len(s.y) }

// row returns row i's feature values: a view of the dense matrix, or the
// coded row decoded into buf (of nFeat values).
func (s fitSet) row(i int, buf []float64) []float64 {
	if s.cols == nil {
		return s.x[i*s.nFeat : (i+1)*s.nFeat : (i+1)*s.nFeat]
	}
	r := s.rowAt(i)
	for f := range s.cols {
		buf[f] = s.cols[f].value(r)
	}
	return buf
}

// rowAt returns the row of the columns that is the set's row i.
func (s fitSet) rowAt(i int) int {
	if s.rows == nil {
		return i
	}
	return s.rows[i]
}

// split returns the rows with isVal false and those with isVal true, each
// in order.
func (s fitSet) split(isVal []bool) (train, val fitSet) {
	train, val = fitSet{nFeat: s.nFeat, cols: s.cols}, fitSet{nFeat: s.nFeat, cols: s.cols}
	nf := s.nFeat
	for i, v := range isVal {
		p := &train
		if v {
			p = &val
		}
		p.y = append(p.y, s.y[i])
		if s.cols == nil {
			p.x = append(p.x, s.x[i*nf:(i+1)*nf]...)
		} else {
			p.rows = append(p.rows, s.rowAt(i))
		}
	}
	return train, val
}

// dense returns the set's rows as a row-major matrix, for learners that
// take one.
func (s fitSet) dense() []float64 {
	if s.cols == nil {
		return s.x
	}
	x := make([]float64, s.len()*s.nFeat)
	for i := range s.len() {
		s.row(i, x[i*s.nFeat:(i+1)*s.nFeat])
	}
	return x
}

// check returns an error unless the set has rows and features and its
// values and targets are finite, as checkData does for a dense matrix.
func (s fitSet) check() error {
	if s.cols == nil {
		return checkData(s.x, s.nFeat, s.y)
	}
	n := s.len()
	switch {
	case s.nFeat < 1:
		return fmt.Errorf("train: need at least one feature, got %d", s.nFeat)
	case n == 0:
		return fmt.Errorf("train: no training rows")
	case n > math.MaxInt32:
		return fmt.Errorf("train: %d rows, at most %d supported", n, math.MaxInt32)
	}
	for f := range s.cols {
		c := &s.cols[f]
		if !slices.ContainsFunc(c.vals, notFinite) {
			continue
		}
		for i := range n {
			if v := c.value(s.rowAt(i)); notFinite(v) {
				return fmt.Errorf("train: feature %d of row %d is %g", f, i, v)
			}
		}
	}
	for i, v := range s.y {
		if notFinite(v) {
			return fmt.Errorf("train: target of row %d is %g", i, v)
		}
	}
	return nil
}

func notFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// binInto bins the set's rows into b: for each feature, the bounds of at
// most maxBins bins (binBounds) and its range; then, for the features
// with two values or more, the rows' bins.
func (s fitSet) binInto(b *builder, maxBins int) {
	if s.cols == nil {
		binDense(b, s.x, maxBins)
		return
	}
	minKeyed := s.keyedRows
	if minKeyed == 0 {
		minKeyed = keyedFitRows
	}
	binCoded(b, s.cols, s.rows, maxBins, b.n >= minKeyed)
}

// binDense bins the rows of the row-major matrix x.
func binDense(b *builder, x []float64, maxBins int) {
	n, nFeat := b.n, len(b.lo)
	col := make([]float64, n)
	up := make([][]float64, nFeat)
	for f := range nFeat {
		for i := range col {
			col[i] = x[i*nFeat+f]
		}
		up[f] = binBounds(col, maxBins)
		b.lo[f], b.hi[f] = slices.Min(col), slices.Max(col)
	}
	b.layout(up, nil)
	st := b.stride
	for j, f := range b.cols {
		u, at := up[f], b.at[j]
		for i := range n {
			k, _ := slices.BinarySearch(u, x[i*nFeat+f]) // first bound >= v
			b.bins[i*st+at] = uint8(k)
		}
	}
}

// binCoded bins the given rows of coded columns (every row when rows is
// nil): a feature's codes are counted over the rows, and the values they
// stand for, sorted, with their counts, give the bounds that sorting the
// rows' values gives. With byKey, keyed columns are binned by key.
func binCoded(b *builder, cols []codedCol, rows []int, maxBins int, byKey bool) {
	var counts, keyCounts []int
	var present []uint32
	var distinct []float64
	var dcount []int
	up := make([][]float64, len(cols))
	// tables[f] maps a code of feature f to its bin.
	tables := make([][]uint8, len(cols))
	for f := range cols {
		c := &cols[f]
		counts = slices.Grow(counts[:0], len(c.vals))[:len(c.vals)]
		clear(counts)
		if c.byKey == nil {
			countIndexes(counts, &c.indexCol, rows)
		} else {
			// The keys' counts, each added to its code's.
			keyCounts = slices.Grow(keyCounts[:0], len(c.byKey))[:len(c.byKey)]
			clear(keyCounts)
			countIndexes(keyCounts, &c.indexCol, rows)
			for k, m := range keyCounts {
				counts[c.byKey[k]] += m
			}
		}
		present = present[:0]
		for k, m := range counts {
			if m > 0 {
				present = append(present, uint32(k))
			}
		}
		slices.SortFunc(present, func(p, q uint32) int { return cmp.Compare(c.vals[p], c.vals[q]) })
		distinct, dcount = distinct[:0], dcount[:0]
		for _, k := range present {
			distinct = append(distinct, c.vals[k])
			dcount = append(dcount, counts[k])
		}
		u := boundsOf(distinct, dcount, b.n, maxBins)
		up[f] = u
		b.lo[f], b.hi[f] = distinct[0], distinct[len(distinct)-1]
		if len(u) == 0 {
			continue
		}
		// The distinct values are sorted: their bins are found in one merge.
		table := make([]uint8, len(c.vals))
		j := 0
		for _, k := range present {
			for j < len(u) && u[j] < c.vals[k] {
				j++
			}
			table[k] = uint8(j)
		}
		if c.byKey != nil {
			// A keyed column's rows are binned by their keys.
			keyTable := make([]uint8, len(c.byKey))
			for k, code := range c.byKey {
				keyTable[k] = table[code]
			}
			table = keyTable
		}
		tables[f] = table
	}
	var plan *keyPlan
	if byKey {
		plan = &keyPlan{by: make([]sampleKey, len(cols))}
		for f := range cols {
			if c := &cols[f]; c.byKey != nil {
				plan.by[f] = c.keyedBy
				plan.keys[c.keyedBy] = max(plan.keys[c.keyedBy], len(c.byKey))
			}
		}
	}
	b.layout(up, plan)
	st, bins := b.stride, b.bins
	for j, f := range b.cols {
		c, table := &cols[f], tables[f]
		if gi := b.group[j]; gi >= 0 {
			g := &b.groups[gi]
			for k, bin := range table { // a keyed column's table is by key
				g.table[k*len(g.feats)+b.at[j]] = bin
			}
			continue
		}
		binIndexes(bins, st, b.at[j], table, &c.indexCol, rows)
	}
	for i := range b.groups {
		g := &b.groups[i]
		keys := &cols[b.cols[g.feats[0]]].indexCol
		switch {
		case keys.u16 != nil:
			putKeys(bins, st, g.keyAt, g.wide, keys.u16, rows)
		case keys.u32 != nil:
			putKeys(bins, st, g.keyAt, g.wide, keys.u32, rows)
		default:
			putKeys(bins, st, g.keyAt, g.wide, keys.u8, rows)
		}
	}
}

// binIndexes sets byte at of each row of the bins (st bytes a row) of the
// given rows of c (all of them when rows is nil) to their indexes' bins.
func binIndexes(bins []uint8, st, at int, table []uint8, c *indexCol, rows []int) {
	switch {
	case c.u16 != nil:
		binCodes(bins, st, at, table, c.u16, rows)
	case c.u32 != nil:
		binCodes(bins, st, at, table, c.u32, rows)
	default:
		binCodes(bins, st, at, table, c.u8, rows)
	}
}

// putKeys writes the given rows' keys (all of them when rows is nil) at
// byte at of their rows of the bins (st bytes a row): one byte, or two,
// little-endian, when wide.
func putKeys[T uint8 | uint16 | uint32](bins []uint8, st, at int, wide bool, keys []T, rows []int) {
	n := len(rows)
	if rows == nil {
		n = len(keys)
	}
	for i := range n {
		k := uint32(keys[i])
		if rows != nil {
			k = uint32(keys[rows[i]])
		}
		bins[i*st+at] = uint8(k)
		if wide {
			bins[i*st+at+1] = uint8(k >> 8)
		}
	}
}

// countIndexes adds to counts[k] the rows whose index in c is k, over the
// given rows (all of them when rows is nil).
func countIndexes(counts []int, c *indexCol, rows []int) {
	switch {
	case c.u16 != nil:
		countCodes(counts, c.u16, rows)
	case c.u32 != nil:
		countCodes(counts, c.u32, rows)
	default:
		countCodes(counts, c.u8, rows)
	}
}

// countCodes adds to counts[k] the rows whose code is k, over the given
// rows of codes (all of them when rows is nil).
func countCodes[T uint8 | uint16 | uint32](counts []int, codes []T, rows []int) {
	if rows == nil {
		for _, k := range codes {
			counts[k]++
		}
		return
	}
	for _, r := range rows {
		counts[codes[r]]++
	}
}

// binCodes sets byte j of each row of the bins (nb bytes a row) of the
// given rows of codes (all of them when rows is nil) to their codes' bins.
func binCodes[T uint8 | uint16 | uint32](bins []uint8, nb, j int, table []uint8, codes []T, rows []int) {
	if rows == nil {
		for i, k := range codes {
			bins[i*nb+j] = table[k]
		}
		return
	}
	for i, r := range rows {
		bins[i*nb+j] = table[codes[r]]
	}
}

// dataLearner is a Learner that fits on a fitSet, so that a Data's coded
// rows are binned for a fit without a float64 copy of them.
type dataLearner interface {
	Learner
	fitSet(s fitSet) (Regressor, error)
}

var (
	_ dataLearner = GBRTOptions{}
	_ dataLearner = ForestOptions{}
	_ dataLearner = blendLearner{}
	_ dataLearner = TopOptions{}
)

// fitSet fits on the rows of s, as Fit does on their feature vectors: the
// groups come from the codes of the group columns, which two rows share
// exactly when they share the values (a code stands for one value).
func (o TopOptions) fitSet(s fitSet) (Regressor, error) {
	g, err := o.GBRT.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	best := groupBest(s.y, s.groups(o.GroupColumns))
	var frac []float64
	if s.buf != nil {
		frac = reuse(&s.buf.target, len(s.y))
	} else {
		frac = make([]float64, len(s.y))
	}
	for i, y := range s.y {
		frac[i] = math.Exp(y - best[i])
		if o.Anchored {
			frac[i] += best[i] - 1
		}
	}
	s.y = frac
	e, err := fitGBRT(s, g)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// groups returns the set's rows grouped by their values in cols, in order
// of first appearance, as groupRowsBy does for a dense matrix.
func (s fitSet) groups(cols []int) [][]int32 {
	if s.cols == nil {
		return groupRowsBy(s.x, s.nFeat, cols)
	}
	return groupByKey(s.len(), func(i int, key []byte) []byte {
		r := s.rowAt(i)
		for _, f := range cols {
			k := s.cols[f].code(r)
			key = append(key, byte(k), byte(k>>8), byte(k>>16), byte(k>>24))
		}
		return key
	})
}

// fitOn fits l on s: from its rows as they are when l can, else on a
// dense copy of them.
func fitOn(l Learner, s fitSet) (Regressor, error) {
	if dl, ok := l.(dataLearner); ok {
		return dl.fitSet(s)
	}
	return l.Fit(s.dense(), s.nFeat, s.y)
}

// FitRows fits l on the given rows of d, in that order (every row when
// rows is nil). GBRTOptions, ForestOptions, TopOptions and blends of them
// bin the rows straight from d's coded features; another Learner gets a
// float64 copy.
// The model is the one l.Fit fits on the same rows' feature vectors.
func FitRows(l Learner, d *Data, rows []int) (Regressor, error) {
	return fitOn(l, d.fitSet(rows, nil))
}

// fitRowsWith is FitRows with buf's buffers lent to the fit (none when
// buf is nil); the model is the same.
func fitRowsWith(l Learner, d *Data, rows []int, buf *fitBuffers) (Regressor, error) {
	return fitOn(l, d.fitSet(rows, buf))
}

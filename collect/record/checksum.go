package record

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/zeebo/xxh3"
)

// A finished dataset file proves itself with two checksums in its schema
// metadata, which the Arrow file format keeps in the footer:
//
//   - meta_xxh3, the XXH3-64 of the other metadata values (kernel, space,
//     platform, ...), so that a flipped digit in the space or the platform
//     is not read as another space or platform;
//   - batch_xxh3, a JSON list with the XXH3-64 of each record batch's rows,
//     so that a flip in a batch, or in the footer's list of batches, is not
//     read as other values or as fewer rows.
//
// A file with the times_ns column has a third, runs_xxh3, the XXH3-64 of
// each batch's timed runs. It is apart from batch_xxh3 so that readers
// that do not read the runs (ReadOptions.Runs false, and augur versions
// from before the column) check the rows as before, and the rows of a
// file without the column hash as they did.
//
// All hash the decoded values (rowHash), not the bytes: the check holds
// whatever the compression, and a flip that decodes to the same values
// (padding, the unused copy of the schema at the start of the file) is
// harmless. A file that has either key must have both, so that one flip
// in a key's name cannot turn a checked file into an unchecked one. Files
// written before the checksums existed have neither and read as before,
// unverified (File.Verified false).
const (
	keyMetaHash  = "meta_xxh3"
	keyBatchHash = "batch_xxh3"
	keyRunsHash  = "runs_xxh3"
)

// hashedKeys are the metadata keys meta_xxh3 covers, in the order hashed.
var hashedKeys = [...]string{keyKernel, keyKernelVersion, keyPlatform, keyAugurVersion,
	keyDriverVersion, keyCreated, keyTaskNames, keyParams, keyConstraints, keyReference, keySource}

// metaHash hashes the values of hashedKeys in md; a missing key hashes
// differently from an empty value.
func metaHash(md arrow.Metadata) uint64 {
	h := xxh3.New()
	var n [8]byte
	for _, k := range hashedKeys {
		v, ok := md.GetValue(k)
		if !ok {
			h.Write([]byte{0})
			continue
		}
		binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
		h.Write([]byte{1})
		h.Write(n[:])
		h.WriteString(v)
	}
	return h.Sum64()
}

// withMetaHash returns md with meta_xxh3 added.
func withMetaHash(md arrow.Metadata) arrow.Metadata {
	keys := append(md.Keys()[:md.Len():md.Len()], keyMetaHash)
	vals := append(md.Values()[:md.Len():md.Len()], formatHash(metaHash(md)))
	return arrow.NewMetadata(keys, vals)
}

// withBatchHashes returns sc with batch_xxh3 set to sums.
func withBatchHashes(sc *arrow.Schema, sums []uint64) (*arrow.Schema, error) {
	return withHashes(sc, keyBatchHash, sums)
}

// withHashes returns sc with the metadata key set to the list sums.
func withHashes(sc *arrow.Schema, key string, sums []uint64) (*arrow.Schema, error) {
	hex := make([]string, len(sums))
	for i, s := range sums {
		hex[i] = formatHash(s)
	}
	b, err := json.Marshal(hex)
	if err != nil {
		return nil, fmt.Errorf("record: encode checksums: %w", err)
	}
	md := sc.Metadata()
	keys := append(md.Keys()[:md.Len():md.Len()], key)
	vals := append(md.Values()[:md.Len():md.Len()], string(b))
	m := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(sc.Fields(), &m), nil
}

func formatHash(s uint64) string { return fmt.Sprintf("%016x", s) }

func parseHash(s string) (uint64, error) {
	if len(s) != 16 {
		return 0, fmt.Errorf("checksum %q is not 16 hex digits", s)
	}
	return strconv.ParseUint(s, 16, 64)
}

// checksums are what a file's metadata says its contents hash to.
type checksums struct {
	// present is false for a file written before checksums existed.
	present bool
	batches []uint64
	// runs are the batches' runs_xxh3, nil for a file without the
	// times_ns column.
	runs []uint64
}

// readChecksums checks meta_xxh3 against md and returns batch_xxh3 and,
// when the file has the times_ns column (runsCol), runs_xxh3. A file that
// has one key and not the other is corrupt, as is one whose batch list has
// no batch of the file (batches is the footer's count), and one with
// checksums and the times_ns column but no runs_xxh3.
func readChecksums(md arrow.Metadata, batches int, runsCol bool) (checksums, error) {
	mh, hasMeta := md.GetValue(keyMetaHash)
	bh, hasBatch := md.GetValue(keyBatchHash)
	switch {
	case !hasMeta && !hasBatch:
		return checksums{}, nil
	case !hasMeta:
		return checksums{}, fmt.Errorf("metadata has %s but no %s", keyBatchHash, keyMetaHash)
	case !hasBatch:
		return checksums{}, fmt.Errorf("metadata has %s but no %s", keyMetaHash, keyBatchHash)
	}
	if err := checkMetaHash(md, mh); err != nil {
		return checksums{}, err
	}
	c := checksums{present: true}
	var err error
	if c.batches, err = parseHashList(keyBatchHash, bh, batches); err != nil {
		return checksums{}, err
	}
	rh, hasRuns := md.GetValue(keyRunsHash)
	switch {
	case runsCol && !hasRuns:
		return checksums{}, fmt.Errorf("the file has a %s column and %s but no %s", colTimesNs, keyBatchHash, keyRunsHash)
	case !runsCol && hasRuns:
		return checksums{}, fmt.Errorf("metadata has %s but the file no %s column", keyRunsHash, colTimesNs)
	case runsCol:
		if c.runs, err = parseHashList(keyRunsHash, rh, batches); err != nil {
			return checksums{}, err
		}
	}
	return c, nil
}

// parseHashList parses the JSON list of hashes s, the value of key, which
// must have one a batch.
func parseHashList(key, s string, batches int) ([]uint64, error) {
	var hex []string
	if err := json.Unmarshal([]byte(s), &hex); err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	if len(hex) != batches {
		return nil, fmt.Errorf("the file has %d record batches, its %s lists %d", batches, key, len(hex))
	}
	sums := make([]uint64, len(hex))
	for i, h := range hex {
		v, err := parseHash(h)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %v", key, i, err)
		}
		sums[i] = v
	}
	return sums, nil
}

// checkMetaHash compares the metadata's hash with want, the hex digits of
// meta_xxh3.
func checkMetaHash(md arrow.Metadata, want string) error {
	w, err := parseHash(want)
	if err != nil {
		return fmt.Errorf("%s: %v", keyMetaHash, err)
	}
	if got := metaHash(md); got != w {
		return fmt.Errorf("metadata checksum mismatch: %016x, file says %016x", got, w)
	}
	return nil
}

// rowHasher hashes the rows of one record batch, in order.
type rowHasher struct {
	h   *xxh3.Hasher
	buf []byte
}

func newRowHasher() *rowHasher { return &rowHasher{h: xxh3.New()} }

// begin starts batch i.
func (rh *rowHasher) begin(i int) {
	rh.h.Reset()
	rh.buf = binary.LittleEndian.AppendUint64(rh.buf[:0], uint64(i))
	rh.h.Write(rh.buf)
}

// add hashes r as read back from a file, where a null log_speedup is NaN.
// The hashes are only ever taken of rows read back (from the partial
// stream when writing), so that a NaN and a null are one value.
func (rh *rowHasher) add(r Row) {
	b := rh.buf[:0]
	u64 := binary.LittleEndian.AppendUint64
	b = u64(b, uint64(len(r.Task)))
	for _, v := range r.Task {
		b = u64(b, uint64(v))
	}
	b = u64(b, uint64(len(r.Config)))
	for _, v := range r.Config {
		b = u64(b, uint64(v))
	}
	b = u64(b, uint64(len(r.Status)))
	b = append(b, r.Status...)
	for _, f := range [...]float64{r.TimeNs, r.TimeMinNs, r.TimeCV, r.RefTimeNs, r.CompileMs} {
		b = u64(b, math.Float64bits(f))
	}
	b = u64(b, uint64(r.Repeats))
	if !math.IsNaN(r.LogSpeedup) {
		b = append(b, 1)
		b = u64(b, math.Float64bits(r.LogSpeedup))
	} else {
		b = append(b, 0)
	}
	b = u64(b, uint64(len(r.Error)))
	b = append(b, r.Error...)
	rh.h.Write(b)
	rh.buf = b
}

// addRuns hashes r's timed runs, telling none from an empty list.
func (rh *rowHasher) addRuns(r Row) {
	b := rh.buf[:0]
	if r.Runs == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(r.Runs)))
		for _, v := range r.Runs {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	rh.h.Write(b)
	rh.buf = b
}

// sum ends the batch of n rows and returns its hash.
func (rh *rowHasher) sum(n int) uint64 {
	rh.buf = binary.LittleEndian.AppendUint64(rh.buf[:0], uint64(n))
	rh.h.Write(rh.buf)
	return rh.h.Sum64()
}

// hashBatch returns the hash of rows as batch i.
func (rh *rowHasher) hashBatch(i int, rows []Row) uint64 {
	rh.begin(i)
	for _, r := range rows {
		rh.add(r)
	}
	return rh.sum(len(rows))
}

// hashRuns returns the hash of the timed runs of rows as batch i.
func (rh *rowHasher) hashRuns(i int, rows []Row) uint64 {
	rh.begin(i)
	for _, r := range rows {
		rh.addRuns(r)
	}
	return rh.sum(len(rows))
}

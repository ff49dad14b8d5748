package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The Arrow reader sizes some slices by vector lengths it reads from the
// flatbuffers of the schema (fields, children, key-value metadata) before
// it reads their elements. A corrupted length of a few billion makes it
// allocate hundreds of gigabytes, which ends the process with an
// out-of-memory error that no recover catches. checkSchemaFB walks those
// vectors first and refuses lengths that do not fit in the buffer.

// errFlatbuffer reports a flatbuffer that points outside itself.
var errFlatbuffer = errors.New("metadata flatbuffer points outside itself")

// fb is a flatbuffer under check.
type fb []byte

func (b fb) u32(pos int) (int, error) {
	if pos < 0 || pos+4 > len(b) {
		return 0, errFlatbuffer
	}
	return int(binary.LittleEndian.Uint32(b[pos:])), nil
}

// field returns the position of slot i of the table at t, or 0 when the
// slot is absent.
func (b fb) field(t, slot int) (int, error) {
	if t < 0 || t+4 > len(b) {
		return 0, errFlatbuffer
	}
	vt := t - int(int32(binary.LittleEndian.Uint32(b[t:])))
	if vt < 0 || vt+4 > len(b) {
		return 0, errFlatbuffer
	}
	vtSize := int(binary.LittleEndian.Uint16(b[vt:]))
	at := vt + 4 + 2*slot
	if at+2 > vt+vtSize {
		return 0, nil
	}
	if at+2 > len(b) {
		return 0, errFlatbuffer
	}
	off := int(binary.LittleEndian.Uint16(b[at:]))
	if off == 0 {
		return 0, nil
	}
	return t + off, nil
}

// ref follows the offset of slot i of table t to a table, vector or
// string; 0 when the slot is absent.
func (b fb) ref(t, slot int) (int, error) {
	p, err := b.field(t, slot)
	if err != nil || p == 0 {
		return 0, err
	}
	off, err := b.u32(p)
	if err != nil {
		return 0, err
	}
	return p + off, nil
}

// vector checks the vector at slot i of table t, of elements of elem
// bytes, and returns its position and length.
func (b fb) vector(t, slot, elem int) (pos, n int, err error) {
	v, err := b.ref(t, slot)
	if err != nil || v == 0 {
		return 0, 0, err
	}
	n, err = b.u32(v)
	if err != nil {
		return 0, 0, err
	}
	if n > (len(b)-v-4)/elem {
		return 0, 0, fmt.Errorf("%w: vector of %d elements in %d bytes", errFlatbuffer, n, len(b))
	}
	return v + 4, n, nil
}

// tables checks a vector of tables and calls fn with each table.
func (b fb) tables(t, slot int, fn func(int) error) error {
	v, n, err := b.vector(t, slot, 4)
	if err != nil {
		return err
	}
	for i := range n {
		off, err := b.u32(v + 4*i)
		if err != nil {
			return err
		}
		if err := fn(v + 4*i + off); err != nil {
			return err
		}
	}
	return nil
}

// Slots of the Arrow flatbuffer tables (format/*.fbs) that checkSchemaFB
// walks.
const (
	slotFooterSchema   = 1
	slotSchemaFields   = 1
	slotSchemaMeta     = 2
	slotFieldChildren  = 5
	slotFieldMeta      = 6
	slotMessageType    = 1
	slotMessageHeader  = 2
	slotMessageMeta    = 4
	messageTypeSchema  = 1
	maxFieldNestingFB  = 64
	footerTrailerBytes = 10 // int32 footer length + "ARROW1"
)

// checkSchema checks the Schema table at s.
func (b fb) checkSchema(s int) error {
	if err := b.tables(s, slotSchemaMeta, func(int) error { return nil }); err != nil {
		return err
	}
	return b.tables(s, slotSchemaFields, func(f int) error { return b.checkField(f, 0) })
}

func (b fb) checkField(f, depth int) error {
	if depth > maxFieldNestingFB {
		return fmt.Errorf("%w: fields nested more than %d deep", errFlatbuffer, maxFieldNestingFB)
	}
	if err := b.tables(f, slotFieldMeta, func(int) error { return nil }); err != nil {
		return err
	}
	return b.tables(f, slotFieldChildren, func(c int) error { return b.checkField(c, depth+1) })
}

// checkFooterFile checks the schema in the footer of the Arrow file f of
// size bytes. Other damage is left to the Arrow reader.
func checkFooterFile(f io.ReaderAt, size int64) error {
	if size < footerTrailerBytes {
		return nil
	}
	var tr [footerTrailerBytes]byte
	if _, err := f.ReadAt(tr[:], size-footerTrailerBytes); err != nil {
		return nil
	}
	n := int64(int32(binary.LittleEndian.Uint32(tr[:])))
	if n <= 0 || n > size-footerTrailerBytes {
		return nil // the Arrow reader reports it
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-footerTrailerBytes-n); err != nil {
		return nil
	}
	b := fb(buf)
	root, err := b.u32(0)
	if err != nil {
		return err
	}
	s, err := b.ref(root, slotFooterSchema)
	if err != nil || s == 0 {
		return err
	}
	return b.checkSchema(s)
}

// peekStreamSchema reads the first message of the stream in br, of size
// bytes at most, checks its metadata, and returns a reader that yields the
// stream from its start again.
func peekStreamSchema(r io.Reader, size int64) (io.Reader, error) {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:4]); err != nil {
		return nil, err
	}
	consumed := head[:4]
	n := int64(binary.LittleEndian.Uint32(head[:4]))
	if n == 0xFFFFFFFF {
		if _, err := io.ReadFull(r, head[4:]); err != nil {
			return nil, err
		}
		consumed = head[:]
		n = int64(int32(binary.LittleEndian.Uint32(head[4:])))
	}
	if n <= 0 || n > size {
		return nil, fmt.Errorf("%w: first message of %d bytes in a file of %d", errFlatbuffer, n, size)
	}
	meta := make([]byte, n)
	if _, err := io.ReadFull(r, meta); err != nil {
		return nil, err
	}
	if err := checkMessageFB(meta); err != nil {
		return nil, err
	}
	return io.MultiReader(bytes.NewReader(consumed), bytes.NewReader(meta), r), nil
}

// checkMessageFB checks the metadata of one stream message: the schema it
// holds and its key-value metadata.
func checkMessageFB(buf []byte) error {
	b := fb(buf)
	root, err := b.u32(0)
	if err != nil {
		return err
	}
	if err := b.tables(root, slotMessageMeta, func(int) error { return nil }); err != nil {
		return err
	}
	p, err := b.field(root, slotMessageType)
	if err != nil || p == 0 || p >= len(b) || b[p] != messageTypeSchema {
		return err
	}
	s, err := b.ref(root, slotMessageHeader)
	if err != nil || s == 0 {
		return err
	}
	return b.checkSchema(s)
}

package datasets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/x448/float16"
)

// Elem is the element type of a Buffer or Scalar argument: one of the
// scalar types of the T1 tuning format ("float", "int32", ...). Vector
// types ("float4") are their scalar type with Lanes elements each.
type Elem struct {
	// Name is the T1 type name of one lane ("float", "uint8", ...).
	Name string
	// Size is the bytes of one lane.
	Size int
	// Float is true for the floating-point types, Signed for the signed
	// integers.
	Float, Signed bool
}

// elems are the lane types augur passes to kernels, by T1 name. "half"
// is IEEE 754 binary16, which a kernel reads and writes with vload_half and
// vstore_half (core OpenCL) or, on a device with cl_khr_fp16, as half.
// "custom" is not supported.
var elems = []Elem{
	{Name: "bool", Size: 1},
	{Name: "int8", Size: 1, Signed: true},
	{Name: "uint8", Size: 1},
	{Name: "int16", Size: 2, Signed: true},
	{Name: "uint16", Size: 2},
	{Name: "int32", Size: 4, Signed: true},
	{Name: "uint32", Size: 4},
	{Name: "int64", Size: 8, Signed: true},
	{Name: "uint64", Size: 8},
	{Name: "half", Size: 2, Float: true, Signed: true},
	{Name: "float", Size: 4, Float: true, Signed: true},
	{Name: "double", Size: 8, Float: true, Signed: true},
}

// ParseElem reads a T1 argument type: a lane type, or a vector of 2, 3,
// 4, 8 or 16 lanes ("float4"). It returns the lane type and the lanes.
func ParseElem(name string) (Elem, int, error) {
	base, lanes := name, 1
	for _, n := range []string{"16", "8", "4", "3", "2"} {
		if b, ok := strings.CutSuffix(name, n); ok && (b == "float" || b == "double" || b == "half") {
			base = b
			fmt.Sscan(n, &lanes)
			break
		}
	}
	for _, e := range elems {
		if e.Name == base {
			return e, lanes, nil
		}
	}
	var names []string
	for _, e := range elems {
		names = append(names, e.Name)
	}
	return Elem{}, 0, fmt.Errorf("type %q is not supported (have %s and float/double vectors)", name, strings.Join(names, ", "))
}

// Put writes v as one lane at b[i*Size:], rounding toward zero and
// wrapping as C's conversions do for an integer type.
func (e Elem) Put(b []byte, i int, v float64) {
	p := b[i*e.Size:]
	switch {
	case e.Name == "half":
		binary.LittleEndian.PutUint16(p, float16.Fromfloat32(float32(v)).Bits())
	case e.Name == "float":
		binary.LittleEndian.PutUint32(p, math.Float32bits(float32(v)))
	case e.Name == "double":
		binary.LittleEndian.PutUint64(p, math.Float64bits(v))
	case e.Name == "bool":
		p[0] = 0
		if v != 0 {
			p[0] = 1
		}
	default:
		var u uint64
		if e.Signed {
			u = uint64(int64(v))
		} else {
			u = uint64(v)
		}
		switch e.Size {
		case 1:
			p[0] = byte(u)
		case 2:
			binary.LittleEndian.PutUint16(p, uint16(u))
		case 4:
			binary.LittleEndian.PutUint32(p, uint32(u))
		default:
			binary.LittleEndian.PutUint64(p, u)
		}
	}
}

// At reads lane i of b as a float64.
func (e Elem) At(b []byte, i int) float64 {
	p := b[i*e.Size:]
	switch e.Name {
	case "half":
		return float64(float16.Frombits(binary.LittleEndian.Uint16(p)).Float32())
	case "float":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
	case "double":
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	}
	var u uint64
	switch e.Size {
	case 1:
		u = uint64(p[0])
		if e.Signed {
			return float64(int8(u))
		}
	case 2:
		u = uint64(binary.LittleEndian.Uint16(p))
		if e.Signed {
			return float64(int16(u))
		}
	case 4:
		u = uint64(binary.LittleEndian.Uint32(p))
		if e.Signed {
			return float64(int32(u))
		}
	default:
		u = binary.LittleEndian.Uint64(p)
		if e.Signed {
			return float64(int64(u))
		}
	}
	return float64(u)
}

// Close compares got with want lane by lane as NumPy's allclose does, which
// Kernel Tuner's verification uses: |got - want| <= atol + rtol*|want|.
// Bit-identical outputs match; otherwise a NaN never does (collect checks
// the reference's outputs for NaN before it compares with them). It returns an error naming the first lane that
// differs and how many do.
func (e Elem) Close(got, want []byte, atol, rtol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("output has %d bytes, want %d", len(got), len(want))
	}
	if bytes.Equal(got, want) {
		return nil // bit for bit, the common case, without decoding
	}
	n := len(want) / e.Size
	bad, first := 0, -1
	for i := 0; i < n; i++ {
		g, w := e.At(got, i), e.At(want, i)
		if d := math.Abs(g - w); !(d <= atol+rtol*math.Abs(w)) {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d values differ beyond atol %g, rtol %g; first at %d: got %g, want %g",
		bad, n, atol, rtol, first, e.At(got, first), e.At(want, first))
}

// CloseSum is Close for the sums of got's and want's values: the check of
// outputs that differ value by value but add up to the same.
func (e Elem) CloseSum(got, want []byte, atol, rtol float64) error {
	g, w := e.sum(got), e.sum(want)
	if d := math.Abs(g - w); !(d <= atol+rtol*math.Abs(w)) {
		return fmt.Errorf("the values add up to %g, want %g (atol %g, rtol %g)", g, w, atol, rtol)
	}
	return nil
}

// sum adds up b's values (every lane), in float64.
func (e Elem) sum(b []byte) float64 {
	s := 0.0
	for i := 0; i < len(b)/e.Size; i++ {
		s += e.At(b, i)
	}
	return s
}

// Finite returns an error naming the first lane of b that is NaN or
// infinite; integer types always pass.
func (e Elem) Finite(b []byte) error {
	if !e.Float {
		return nil
	}
	for i := 0; i < len(b)/e.Size; i++ {
		if v := e.At(b, i); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value %d is %g", i, v)
		}
	}
	return nil
}

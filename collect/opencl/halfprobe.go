package opencl

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/x448/float16"

	"github.com/augur-tuning/augur/datasets"
)

// halfProbe is what a session knows of its device's half images.
type halfProbe int

const (
	halvesUnknown halfProbe = iota
	halvesProbing           // the probe's own images bind unchecked
	halvesRight
	halvesWrong
)

// halfProbeSource reads one half pixel, writes it to a float buffer and
// writes twice it to a half image.
const halfProbeSource = `
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void probe(__read_only image2d_t in, __write_only image2d_t out, __global float* got) {
    const float v = read_imagef(in, nearest, (int2)(0, 0)).x;
    got[0] = v;
    write_imagef(out, (int2)(0, 0), (float4)(2.0f * v, 0.0f, 0.0f, 1.0f));
}`

// halfImages returns an error naming arg when it is an image of half
// pixels (CL_HALF_FLOAT) and the device reads or writes such images
// wrong, as PoCL 5.0 does: a kernel would be timed on values it never
// computed, and verified against a reference that is as wrong. A one-pixel
// probe, run once a session, tells.
func (s *Session) halfImages(arg datasets.Arg) error {
	if arg.Elem.Name != "half" || s.halves == halvesProbing {
		return nil
	}
	if s.halves == halvesUnknown {
		s.halves = halvesProbing
		read, wrote, err := s.probeHalves()
		if err != nil {
			s.halves = halvesUnknown
			return fmt.Errorf("opencl: image %s: probing the device's half images: %w", arg.Name, err)
		}
		s.halves, s.halvesSeen = halvesRight, fmt.Sprintf("read 1.5 as %g and wrote 3 as %g", read, wrote)
		if read != 1.5 || wrote != 3 {
			s.halves = halvesWrong
		}
	}
	if s.halves == halvesWrong {
		return fmt.Errorf("opencl: image %s: the device reads or writes half images (CL_HALF_FLOAT) wrong (a one-pixel probe %s; PoCL 5.0 does so): give it float pixels", arg.Name, s.halvesSeen)
	}
	return nil
}

// probeHalves runs halfProbeSource on a pixel of 1.5 and returns what the
// kernel read (1.5 if right) and wrote (3).
func (s *Session) probeHalves() (read, wrote float32, err error) {
	p, err := s.Build(halfProbeSource, "", "probe")
	if err != nil {
		return 0, 0, err
	}
	defer p.Release()
	half, _, _ := datasets.ParseElem("half")
	f32, _, _ := datasets.ParseElem("float")
	in := make([]byte, 2)
	half.Put(in, 0, 1.5)
	a, err := s.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Image2D, Elem: half, Bytes: in, Width: 1, Height: 1},
		{Name: "out", Kind: datasets.Image2D, Elem: half, Bytes: make([]byte, 2), Width: 1, Height: 1, Output: true},
		{Name: "got", Kind: datasets.Buffer, Elem: f32, Bytes: make([]byte, 4), Output: true},
	})
	if err != nil {
		return 0, 0, err
	}
	defer a.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.ResetOutput(a); err != nil {
		return 0, 0, err
	}
	if _, err := s.Run(ctx, p, a, datasets.Launch{Dims: 1, Global: [3]int{1, 1, 1}, Local: [3]int{1, 1, 1}}); err != nil {
		return 0, 0, err
	}
	out := [][]byte{make([]byte, 2), make([]byte, 4)}
	if _, err := s.ReadOutputs(a, out); err != nil {
		return 0, 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(out[1])), float16.Frombits(binary.LittleEndian.Uint16(out[0])).Float32(), nil
}

package opencl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unsafe"

	"github.com/augur-tuning/augur/datasets"
	"github.com/jgillich/go-opencl/cl"
)

// Session is an OpenCL context and an in-order command queue with
// profiling enabled on one device. Build may be called from several
// goroutines at once (OpenCL makes program creation and building
// thread-safe); Bind, Run, ResetOutput and ReadOutput drive the single
// queue and must be called from one goroutine at a time.
type Session struct {
	dev   Device
	ctx   *cl.Context
	queue *cl.CommandQueue
	// stuck is the event of a kernel Run gave up waiting for; nil while
	// the queue is usable.
	stuck *cl.Event
	// events is RunBatch's list of a batch's events, kept for the next.
	events []*cl.Event
	// halves is what the probe of half images found (halfImages), and
	// halvesSeen what it read and wrote.
	halves     halfProbe
	halvesSeen string
}

// Open creates a context and a profiling command queue on d.
func (d Device) Open() (*Session, error) {
	ctx, err := cl.CreateContext([]*cl.Device{d.dev})
	if err != nil {
		return nil, fmt.Errorf("opencl: create context on %s: %w", d, err)
	}
	q, err := ctx.CreateCommandQueue(d.dev, cl.CommandQueueProfilingEnable)
	if err != nil {
		ctx.Release()
		return nil, fmt.Errorf("opencl: create queue on %s: %w", d, err)
	}
	return &Session{dev: d, ctx: ctx, queue: q}, nil
}

// Device returns the session's device.
func (s *Session) Device() Device { return s.dev }

// closeGrace is how long Close waits for a kernel that Run gave up on
// before it abandons the session.
const closeGrace = time.Second

// Close waits for the queue to drain and releases the queue and context.
// Programs and Args made by the session must be released first. When a
// kernel that Run gave up on is still running a second later, Close
// returns at once and leaves the queue and context unreleased: the driver
// cannot free what a running kernel uses, and waiting could take forever.
func (s *Session) Close() error {
	if s.queue == nil {
		return nil
	}
	if s.stuck != nil {
		ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
		err := waitEvent(ctx, s.stuck, nil)
		cancel()
		if err != nil {
			s.queue, s.ctx = nil, nil
			return nil
		}
		s.stuck.Release()
		s.stuck = nil
	}
	err := s.queue.Finish()
	s.queue.Release()
	s.ctx.Release()
	s.queue, s.ctx = nil, nil
	if err != nil {
		return fmt.Errorf("opencl: finish queue: %w", err)
	}
	return nil
}

// Program is a built program and its one kernel, with the limits the
// compiler reported for that kernel on the session's device.
type Program struct {
	prog   *cl.Program
	kernel *cl.Kernel
	// WorkGroupSize is CL_KERNEL_WORK_GROUP_SIZE: the largest work-group
	// this kernel can be launched with, often below the device's maximum
	// because of the registers or local memory it uses.
	WorkGroupSize int
	// LocalMemBytes is CL_KERNEL_LOCAL_MEM_SIZE: the local memory the
	// kernel uses, in bytes.
	LocalMemBytes int64
	// NumArgs is CL_KERNEL_NUM_ARGS: the arguments the kernel takes; 0
	// when the driver would not say.
	NumArgs int
}

// Release frees the kernel and the program. It is safe to call twice.
func (p *Program) Release() {
	if p.kernel != nil {
		p.kernel.Release()
		p.kernel = nil
	}
	if p.prog != nil {
		p.prog.Release()
		p.prog = nil
	}
}

// Build compiles source with the compiler options and creates the kernel
// named entry. Any failure is an *Error of Kind BuildFailed, with the build
// log in Error.Log when the compiler produced one (a compiler's temporary
// file names, as PoCL's, read "<source>").
func (s *Session) Build(source, options, entry string) (*Program, error) {
	prog, err := s.ctx.CreateProgramWithSource([]string{source})
	if err != nil {
		return nil, &Error{Kind: BuildFailed, Op: "create program", Err: err}
	}
	if err := prog.BuildProgram([]*cl.Device{s.dev.dev}, options); err != nil {
		prog.Release()
		e := &Error{Kind: BuildFailed, Op: "build", Err: err}
		var be cl.BuildError
		if errors.As(err, &be) {
			e.Log = tempSource.ReplaceAllString(strings.Trim(string(be), " \t\r\n\x00"), "<source>")
			if e.Log == "" {
				e.Log = "build failed with an empty log"
			}
		}
		return nil, e
	}
	k, err := prog.CreateKernel(entry)
	if err != nil {
		prog.Release()
		return nil, &Error{Kind: BuildFailed, Op: "create kernel " + entry, Err: err}
	}
	p := &Program{prog: prog, kernel: k}
	if p.WorkGroupSize, err = k.WorkGroupSize(s.dev.dev); err != nil {
		p.Release()
		return nil, &Error{Kind: BuildFailed, Op: "query kernel work-group size", Err: err}
	}
	if p.LocalMemBytes, err = kernelLocalMem(k, s.dev.dev); err != nil {
		p.Release()
		return nil, &Error{Kind: BuildFailed, Op: "query kernel local memory", Err: err}
	}
	if n, err := k.NumArgs(); err == nil {
		p.NumArgs = n
	}
	return p, nil
}

// Args are a task's kernel arguments bound to device buffers. The inputs
// are uploaded once and shared by every configuration run on the task.
type Args struct {
	vals []any // one per kernel argument: *cl.MemObject, cl.LocalBuffer, rawScalar or a Go scalar
	bufs []*cl.MemObject
	outs []output
	// UploadNs is the device time the input uploads took, in nanoseconds.
	UploadNs int64
}

// output is a buffer or an image that the kernel writes and collect reads
// back.
type output struct {
	mem   *cl.MemObject
	bytes int
	// region is an image's width, height and depth in pixels (depth 1 for
	// a 2D image); zero for a buffer.
	region [3]int
	// nan is NaN as the output's floating-point type holds it
	// (little-endian): one value for a buffer, the pattern ResetOutput
	// fills it with, every pixel for an image, which it writes whole.
	nan []byte
	// init is what ResetOutput restores; nil writes nan, so that an
	// element left unwritten fails verification.
	init []byte
	// declared is what the arguments filled a NaN-filled buffer with
	// (zeros), for KeepDeclared.
	declared []byte
}

// rawScalar is a by-value argument's little-endian bytes.
type rawScalar []byte

// Release frees the buffers. It is safe to call twice.
func (a *Args) Release() {
	// In reverse, so that an image buffer goes before the buffer it views.
	for i := len(a.bufs) - 1; i >= 0; i-- {
		a.bufs[i].Release()
	}
	a.bufs, a.vals, a.outs = nil, nil, nil
}

// OutputLen is the number of floats in the first output.
func (a *Args) OutputLen() int {
	if len(a.outs) == 0 {
		return 0
	}
	return a.outs[0].bytes / 4
}

// OutputBytes returns the size in bytes of each output, in argument order.
func (a *Args) OutputBytes() []int {
	out := make([]int, len(a.outs))
	for i, o := range a.outs {
		out[i] = o.bytes
	}
	return out
}

// Bind creates a buffer for each Input, Output and Buffer argument and an
// image for each Image2D and ImageBuffer (a placeholder buffer on a device
// without images, unless the image is an output), uploads the inputs and
// waits for the uploads to finish. args must hold at least one output: an
// Output, or a Buffer or Image2D marked Output.
func (s *Session) Bind(args []datasets.Arg) (*Args, error) {
	a := &Args{vals: make([]any, len(args))}
	fail := func(err error) (*Args, error) {
		a.Release()
		return nil, err
	}
	for i, arg := range args {
		switch arg.Kind {
		case datasets.Input:
			if len(arg.Data) == 0 {
				return fail(fmt.Errorf("opencl: argument %d (%s) is an empty input", i, arg.Name))
			}
			b, err := s.upload(a, arg.Name, cl.MemReadOnly, unsafe.Pointer(&arg.Data[0]), 4*len(arg.Data))
			if err != nil {
				return fail(err)
			}
			a.vals[i] = b
		case datasets.Output:
			if arg.Len <= 0 {
				return fail(fmt.Errorf("opencl: output %s has length %d, want > 0", arg.Name, arg.Len))
			}
			b, err := s.ctx.CreateEmptyBuffer(cl.MemWriteOnly, 4*arg.Len)
			if err != nil {
				return fail(wrap("create buffer "+arg.Name, err))
			}
			a.bufs = append(a.bufs, b)
			f32, _, _ := datasets.ParseElem("float")
			a.outs = append(a.outs, output{mem: b, bytes: 4 * arg.Len, nan: nanOf(f32)})
			a.vals[i] = b
		case datasets.Buffer:
			if len(arg.Bytes) == 0 {
				return fail(fmt.Errorf("opencl: argument %d (%s) is an empty buffer", i, arg.Name))
			}
			b, err := s.upload(a, arg.Name, cl.MemReadWrite, unsafe.Pointer(&arg.Bytes[0]), len(arg.Bytes))
			if err != nil {
				return fail(err)
			}
			a.vals[i] = b
			if arg.Output {
				o := output{mem: b, bytes: len(arg.Bytes), init: arg.Bytes}
				if arg.Elem.Float && allZero(arg.Bytes) {
					// Written, not updated: NaN shows what is left
					// unwritten (unless KeepDeclared says otherwise).
					o.init, o.declared, o.nan = nil, arg.Bytes, nanOf(arg.Elem)
				}
				a.outs = append(a.outs, o)
			}
		case datasets.Scalar:
			if len(arg.Bytes) == 0 {
				return fail(fmt.Errorf("opencl: scalar %d (%s) has no value", i, arg.Name))
			}
			a.vals[i] = rawScalar(arg.Bytes)
		case datasets.LocalMem:
			a.vals[i] = cl.LocalBuffer(max(arg.Len, 1))
		case datasets.Int32:
			a.vals[i] = arg.Int
		case datasets.Float32:
			a.vals[i] = arg.Float
		case datasets.Image2D, datasets.Image3D, datasets.Image2DArray, datasets.ImageBuffer:
			if arg.Output {
				m, err := s.bindOutputImage(a, arg)
				if err != nil {
					return fail(err)
				}
				a.vals[i] = m
				continue
			}
			m, err := s.bindImage(a, args[:i], arg)
			if err != nil {
				return fail(err)
			}
			a.vals[i] = m
		default:
			return fail(fmt.Errorf("opencl: argument %d (%s) has unknown kind %d", i, arg.Name, arg.Kind))
		}
	}
	if len(a.outs) == 0 {
		return fail(errors.New("opencl: arguments hold no output"))
	}
	return a, nil
}

// Set replaces the value of argument i, a Scalar or a LocalMem, for the
// runs that follow: a spec kernel's arguments that depend on the
// configuration (datasets.Kernel.ConfigArgs).
func (a *Args) Set(i int, arg datasets.Arg) error {
	if i < 0 || i >= len(a.vals) {
		return fmt.Errorf("opencl: argument %d of %d", i, len(a.vals))
	}
	switch arg.Kind {
	case datasets.Scalar:
		if len(arg.Bytes) == 0 {
			return fmt.Errorf("opencl: scalar %d (%s) has no value", i, arg.Name)
		}
		a.vals[i] = rawScalar(arg.Bytes)
	case datasets.LocalMem:
		a.vals[i] = cl.LocalBuffer(max(arg.Len, 1))
	default:
		return fmt.Errorf("opencl: argument %d (%s) of kind %d cannot be set per configuration", i, arg.Name, arg.Kind)
	}
	return nil
}

// upload creates a buffer of n bytes with flags and copies n bytes from
// data into it.
func (s *Session) upload(a *Args, name string, flags cl.MemFlag, data unsafe.Pointer, n int) (*cl.MemObject, error) {
	b, err := s.ctx.CreateEmptyBuffer(flags, n)
	if err != nil {
		return nil, wrap("create buffer "+name, err)
	}
	a.bufs = append(a.bufs, b)
	ev, err := s.queue.EnqueueWriteBuffer(b, true, 0, n, data, nil)
	if err != nil {
		ev.Release()
		return nil, wrap("upload "+name, err)
	}
	ns, _ := elapsed(ev)
	ev.Release()
	a.UploadNs += ns
	return b, nil
}

// nanOf returns one NaN of the floating-point type e, as its bytes.
func nanOf(e datasets.Elem) []byte {
	b := make([]byte, e.Size)
	e.Put(b, 0, math.NaN())
	return b
}

func allZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}

// bindImage creates the image of an Image2D or ImageBuffer argument and
// uploads its contents, or, on a device without images, a one-float
// buffer that the kernel declares in the image's place (see
// datasets.Image2D). An ImageBuffer over the same data as an earlier Input
// (one of before, whose buffers a holds in order) views that Input's
// buffer instead of uploading the data again.
func (s *Session) bindImage(a *Args, before []datasets.Arg, arg datasets.Arg) (*cl.MemObject, error) {
	pixels, format, pixelBytes, err := imageFormat(arg)
	if err != nil {
		return nil, err
	}
	if err := s.halfImages(arg); err != nil {
		return nil, err
	}
	if len(pixels) == 0 {
		return nil, fmt.Errorf("opencl: image %s is empty", arg.Name)
	}
	if !s.dev.info.ImageSupport {
		b, err := s.ctx.CreateEmptyBuffer(cl.MemReadOnly, 4)
		if err != nil {
			return nil, wrap("create placeholder for image "+arg.Name, err)
		}
		a.bufs = append(a.bufs, b)
		return b, nil
	}
	n := len(pixels) / pixelBytes
	if arg.Kind != datasets.ImageBuffer {
		img, err := s.createImage(a, arg, cl.MemReadOnly, format, n)
		if err != nil {
			return nil, err
		}
		ev, err := s.queue.EnqueueWriteImage(img, true, [3]int{}, [3]int{arg.Width, arg.Height, max(arg.Depth, 1)}, 0, 0, pixels, nil)
		if err != nil {
			ev.Release()
			return nil, wrap("upload image "+arg.Name, err)
		}
		ns, _ := elapsed(ev)
		ev.Release()
		a.UploadNs += ns
		return img, nil
	}
	var buf *cl.MemObject
	if len(arg.Bytes) == 0 {
		buf = sameInput(a, before, arg.Data)
	}
	if buf == nil {
		b, err := s.upload(a, "image "+arg.Name, cl.MemReadOnly, unsafe.Pointer(&pixels[0]), len(pixels))
		if err != nil {
			return nil, err
		}
		buf = b
	}
	img, err := createImageBuffer(s.ctx, buf, n, format, cl.MemReadOnly)
	if err != nil {
		return nil, wrap("create image buffer "+arg.Name, err)
	}
	// Released before the buffer it views: Release frees in reverse.
	a.bufs = append(a.bufs, img)
	return img, nil
}

// bindOutputImage creates the write-only 2D image of an Image2D argument
// marked Output, which ResetOutput fills before each configuration: with
// NaN where its pixels are floats, so that a pixel left unwritten fails
// verification, else with the argument's contents (a pixel of bytes has no
// such value).
func (s *Session) bindOutputImage(a *Args, arg datasets.Arg) (*cl.MemObject, error) {
	pixels, format, pixelBytes, err := imageFormat(arg)
	if err != nil {
		return nil, err
	}
	if err := s.halfImages(arg); err != nil {
		return nil, err
	}
	switch {
	case !s.dev.info.ImageSupport:
		return nil, fmt.Errorf("opencl: output image %s: the device has no image support", arg.Name)
	case arg.Kind == datasets.Image3D && !strings.Contains(s.dev.dev.Extensions(), "cl_khr_3d_image_writes"):
		return nil, fmt.Errorf("opencl: output image %s: the device cannot write 3D images (it lacks cl_khr_3d_image_writes)", arg.Name)
	}
	if arg.Kind == datasets.ImageBuffer {
		// Reset and read back through the buffer the image views.
		buf, err := s.upload(a, "image "+arg.Name, cl.MemReadWrite, unsafe.Pointer(&pixels[0]), len(pixels))
		if err != nil {
			return nil, err
		}
		img, err := createImageBuffer(s.ctx, buf, len(pixels)/max(pixelBytes, 1), format, cl.MemWriteOnly)
		if err != nil {
			return nil, wrap("create image buffer "+arg.Name, err)
		}
		a.bufs = append(a.bufs, img)
		o := output{mem: buf, bytes: len(pixels), init: pixels}
		if arg.Elem.Float {
			o.init, o.declared, o.nan = nil, pixels, nanOf(arg.Elem)
		}
		a.outs = append(a.outs, o)
		return img, nil
	}
	img, err := s.createImage(a, arg, cl.MemWriteOnly, format, len(pixels)/max(pixelBytes, 1))
	if err != nil {
		return nil, err
	}
	o := output{mem: img, bytes: len(pixels), region: [3]int{arg.Width, arg.Height, max(arg.Depth, 1)}, init: pixels}
	if arg.Elem.Float {
		o.init, o.declared, o.nan = nil, pixels, bytes.Repeat(nanOf(arg.Elem), len(pixels)/arg.Elem.Size)
	}
	a.outs = append(a.outs, o)
	return img, nil
}

// createImage creates the 2D image of arg (the 3D image of an Image3D,
// the array of an Image2DArray), of n pixels, with flags, and keeps it in
// a to release: its size is checked against its pixels and the device's
// largest image.
func (s *Session) createImage(a *Args, arg datasets.Arg, flags cl.MemFlag, format cl.ImageFormat, n int) (*cl.MemObject, error) {
	d := s.dev.dev
	desc := cl.ImageDescription{Type: cl.MemObjectTypeImage2D, Width: arg.Width, Height: arg.Height}
	sides, most, kind := []int{arg.Width, arg.Height}, []int{d.Image2DMaxWidth(), d.Image2DMaxHeight()}, "2D image"
	switch arg.Kind {
	case datasets.Image3D:
		desc.Type, desc.Depth = cl.MemObjectTypeImage3D, arg.Depth
		sides, most, kind = append(sides, arg.Depth), []int{d.Image3DMaxWidth(), d.Image3DMaxHeight(), d.Image3DMaxDepth()}, "3D image"
	case datasets.Image2DArray:
		desc.Type, desc.ArraySize = cl.MemObjectTypeImage2DArray, arg.Depth
		sides, most, kind = append(sides, arg.Depth), append(most, d.ImageMaxArraySize()), "2D image array"
	}
	pixels := 1
	for _, side := range sides {
		pixels *= max(side, 0)
	}
	if pixels == 0 || pixels != n {
		return nil, fmt.Errorf("opencl: image %s is %s with %d pixels", arg.Name, datasets.SidesText(sides), n)
	}
	for i := range sides {
		if sides[i] > most[i] {
			return nil, fmt.Errorf("opencl: image %s is %s pixels, beyond the device's largest %s, %s", arg.Name, datasets.SidesText(sides), kind, datasets.SidesText(most))
		}
	}
	img, err := s.ctx.CreateImage(flags, format, desc, nil)
	if err != nil {
		return nil, wrap("create image "+arg.Name, err)
	}
	a.bufs = append(a.bufs, img)
	return img, nil
}

// channelTypes are the OpenCL channel data types an image of Bytes may
// have, by datasets.Arg.ChannelType's names.
var channelTypes = map[string]cl.ChannelDataType{
	"FLOAT": cl.ChannelDataTypeFloat, "HALF_FLOAT": cl.ChannelDataTypeHalfFloat,
	"UNORM_INT8": cl.ChannelDataTypeUNormInt8, "UNSIGNED_INT8": cl.ChannelDataTypeUnsignedInt8,
	"SNORM_INT8": cl.ChannelDataTypeSNormInt8, "SIGNED_INT8": cl.ChannelDataTypeSignedInt8,
	"UNORM_INT16": cl.ChannelDataTypeUNormInt16, "UNSIGNED_INT16": cl.ChannelDataTypeUnsignedInt16,
	"SNORM_INT16": cl.ChannelDataTypeSNormInt16, "SIGNED_INT16": cl.ChannelDataTypeSignedInt16,
	"UNSIGNED_INT32": cl.ChannelDataTypeUnsignedInt32, "SIGNED_INT32": cl.ChannelDataTypeSignedInt32,
}

// imageFormat returns an image argument's pixels as bytes, their format
// and the bytes a pixel: Data as single-channel floats, or Bytes of Elem
// in ChannelType (its default: CL_FLOAT for float, CL_UNORM_INT8, which
// read_imagef reads as 0 to 1, for uint8) with Channels channels (1:
// CL_R, 4: CL_RGBA).
func imageFormat(arg datasets.Arg) ([]byte, cl.ImageFormat, int, error) {
	f := cl.ImageFormat{ChannelOrder: cl.ChannelOrderR, ChannelDataType: cl.ChannelDataTypeFloat}
	if len(arg.Bytes) == 0 {
		if len(arg.Data) == 0 {
			return nil, f, 4, nil
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(&arg.Data[0])), 4*len(arg.Data)), f, 4, nil
	}
	channel := arg.ChannelType
	switch {
	case channel != "":
	case arg.Elem.Name == "float":
		channel = "FLOAT"
	case arg.Elem.Name == "half":
		channel = "HALF_FLOAT"
	case arg.Elem.Name == "uint8":
		channel = "UNORM_INT8"
	default:
		return nil, f, 0, fmt.Errorf("opencl: image %s holds %s with no channel type", arg.Name, arg.Elem.Name)
	}
	var ok bool
	if f.ChannelDataType, ok = channelTypes[channel]; !ok {
		return nil, f, 0, fmt.Errorf("opencl: image %s: channel type %q is not one of OpenCL's", arg.Name, channel)
	}
	switch arg.Channels {
	case 0, 1:
	case 4:
		f.ChannelOrder = cl.ChannelOrderRGBA
	default:
		return nil, f, 0, fmt.Errorf("opencl: image %s has %d channels, want 1 or 4", arg.Name, arg.Channels)
	}
	pixel := arg.Elem.Size * max(arg.Channels, 1)
	if len(arg.Bytes)%pixel != 0 {
		return nil, f, 0, fmt.Errorf("opencl: image %s has %d bytes, not whole pixels of %d", arg.Name, len(arg.Bytes), pixel)
	}
	return arg.Bytes, f, pixel, nil
}

// sameInput returns the buffer bound for an Input argument of before whose
// data is data itself (the same slice), or nil.
func sameInput(a *Args, before []datasets.Arg, data []float32) *cl.MemObject {
	for i, arg := range before {
		if arg.Kind == datasets.Input && len(arg.Data) == len(data) && &arg.Data[0] == &data[0] {
			if m, ok := a.vals[i].(*cl.MemObject); ok {
				return m
			}
		}
	}
	return nil
}

// KeepDeclared makes every output that ResetOutput fills with NaN start
// from its declared contents (zeros) instead, for a kernel that leaves part
// of an output unwritten on purpose or adds to it, and reports whether there
// was such an output.
func (a *Args) KeepDeclared() bool {
	changed := false
	for i := range a.outs {
		if o := &a.outs[i]; o.init == nil && o.declared != nil {
			o.init, changed = o.declared, true
		}
	}
	return changed
}

// ResetOutput prepares every output for a configuration: a buffer the
// kernel only writes is filled with NaN, so that a configuration that
// leaves part of it unwritten fails verification instead of passing on the
// previous configuration's results; a buffer it updates gets its initial
// contents back. An output image is written likewise: NaN where its
// pixels are floats, its declared contents where they are bytes.
func (s *Session) ResetOutput(a *Args) error {
	for _, o := range a.outs {
		var ev *cl.Event
		var err error
		switch {
		case o.region != [3]int{}:
			data := o.init
			if data == nil {
				data = o.nan
			}
			ev, err = s.queue.EnqueueWriteImage(o.mem, true, [3]int{}, o.region, 0, 0, data, nil)
		case o.init == nil:
			ev, err = s.queue.EnqueueFillBuffer(o.mem, unsafe.Pointer(&o.nan[0]), len(o.nan), 0, o.bytes/len(o.nan)*len(o.nan), nil)
		default:
			ev, err = s.queue.EnqueueWriteBuffer(o.mem, true, 0, o.bytes, unsafe.Pointer(&o.init[0]), nil)
		}
		if err == nil {
			err = cl.WaitForEvents([]*cl.Event{ev})
		}
		ev.Release()
		if err != nil {
			return wrap("reset output", err)
		}
	}
	return nil
}

// Stuck reports whether Run gave up on a kernel that may still be running:
// the in-order queue is then blocked behind it, and the caller opens a new
// session to go on.
func (s *Session) Stuck() bool { return s.stuck != nil }

// Drain waits up to d for the kernel Run gave up on to finish, and reports
// whether it did; the queue is then free again and the session usable.
// Whatever runs on a device while an abandoned kernel still occupies it is
// timed wrong (on a CPU device, it shares the cores), so a caller that
// times more waits here first.
func (s *Session) Drain(ctx context.Context, d time.Duration) bool {
	if s.stuck == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := waitEvent(ctx, s.stuck, nil); err != nil {
		return false
	}
	s.stuck.Release()
	s.stuck = nil
	return true
}

// Run launches p once with a's arguments and the launch geometry, waits for
// it until ctx is done, and returns its execution time in nanoseconds from
// the profiling events (END - START). A launch the compiled kernel cannot
// take (a work-group above Program.WorkGroupSize) fails with ResourceLimit
// before anything is enqueued. When ctx is done first, Run fails with
// TimedOut and the session is Stuck.
func (s *Session) Run(ctx context.Context, p *Program, a *Args, l datasets.Launch) (int64, error) {
	var one [1]int64
	ns, err := s.RunBatch(ctx, p, a, l, one[:0], 1)
	if err != nil {
		return 0, err
	}
	return ns[0], nil
}

// RunBatch launches p n times back to back, as Run does once: the queue
// gets every launch before the host waits, so the device runs them with no
// wait on the host between them (a GPU idle between short kernels lowers
// its clocks). It waits for the last until ctx is done and appends each
// launch's execution time to dst. On a CPU device, where a flush runs the
// commands to their end (see Session.await), n > 1 runs one at a time.
func (s *Session) RunBatch(ctx context.Context, p *Program, a *Args, l datasets.Launch, dst []int64, n int) ([]int64, error) {
	if s.stuck != nil {
		return dst, &Error{Kind: LaunchFailed, Op: "run on a queue stuck behind an unfinished kernel"}
	}
	if l.Dims < 1 || l.Dims > 3 {
		return dst, &Error{Kind: LaunchFailed, Op: fmt.Sprintf("launch with %d dimensions, want 1 to 3", l.Dims)}
	}
	if wg := l.WorkGroupSize(); wg > p.WorkGroupSize {
		return dst, &Error{Kind: ResourceLimit, Op: fmt.Sprintf("work-group size %d exceeds the compiled kernel's limit %d", wg, p.WorkGroupSize)}
	}
	if lim := s.dev.info.LocalMemBytes; p.LocalMemBytes > lim {
		return dst, &Error{Kind: ResourceLimit, Op: fmt.Sprintf("kernel uses %d bytes of local memory, device has %d", p.LocalMemBytes, lim)}
	}
	if p.NumArgs > 0 && len(a.vals) != p.NumArgs {
		// The driver would say only "invalid kernel args".
		return dst, &Error{Kind: LaunchFailed, Op: fmt.Sprintf("the kernel takes %d arguments, %d are given (a spec gives them in KernelSpecification.Arguments)", p.NumArgs, len(a.vals))}
	}
	for i, v := range a.vals {
		var err error
		if r, ok := v.(rawScalar); ok {
			err = p.kernel.SetArgUnsafe(i, len(r), unsafe.Pointer(&r[0]))
		} else {
			err = p.kernel.SetArg(i, v)
		}
		if err != nil {
			return dst, wrap(fmt.Sprintf("set argument %d", i), err)
		}
	}
	global := l.Global[:l.Dims]
	local := l.Local[:l.Dims]
	if l.WorkGroupSize() == 0 {
		// No work-group size: let the driver choose.
		local = nil
	}
	batch := n
	if lateFlush(s.dev.info.Type) {
		batch = 1
	}
	for done := 0; done < n; done += batch {
		k := min(batch, n-done)
		evs := s.events[:0]
		for range k {
			ev, err := s.queue.EnqueueNDRangeKernel(p.kernel, nil, global, local, nil)
			if err != nil {
				ev.Release()
				releaseAll(evs)
				return dst, wrap("enqueue kernel", err)
			}
			evs = append(evs, ev)
		}
		s.events = evs
		last := evs[len(evs)-1]
		if err := s.await(ctx, last); err != nil {
			// await kept or released the last event.
			releaseAll(evs[:len(evs)-1])
			return dst, err
		}
		for _, ev := range evs {
			ns, err := elapsed(ev)
			if err != nil {
				releaseAll(evs)
				return dst, wrap("read profiling times", err)
			}
			dst = append(dst, ns)
		}
		releaseAll(evs)
	}
	return dst, nil
}

// releaseAll releases the events of evs.
func releaseAll(evs []*cl.Event) {
	for _, ev := range evs {
		ev.Release()
	}
}

// await hands the command of ev, just enqueued, to the device and waits
// for it until ctx is done. A command that timed out leaves the session
// Stuck on ev; any other failure releases ev; on success the caller owns
// it.
//
// A GPU driver may keep a command in the host's queue until a flush, and
// the time it waits there counts in its profiled time: on NVIDIA's OpenCL
// (H200, kernels of 10-30 us) the median coefficient of variation of a
// configuration's runs was 20-22% with the flush at waitEvent's second
// poll, 4-5% with it at once or with clWaitForEvents, and the times were
// longer. So a GPU's queue is flushed at once. PoCL's CPU device runs the
// command to its end in the thread that flushes, which would put it beyond
// the timeout's reach: there the flush is left to waitEvent, once the
// command has had a poll to start.
func (s *Session) await(ctx context.Context, ev *cl.Event) error {
	var err error
	flush := s.queue.Flush
	if !lateFlush(s.dev.info.Type) {
		flush = nil
		if err = s.queue.Flush(); err != nil {
			err = wrap("flush queue", err)
		}
	}
	if err == nil {
		err = waitEvent(ctx, ev, flush)
	}
	if err != nil {
		if KindOf(err) == TimedOut {
			s.stuck = ev
		} else {
			ev.Release()
		}
	}
	return err
}

// lateFlush reports whether a device of this type (features.Platform.Type)
// gets its flush from waitEvent rather than at once: only CPU devices.
func lateFlush(deviceType string) bool { return deviceType == "cpu" }

// Polling intervals of waitEvent: short at first, for kernels of
// microseconds, doubling up to a bound that keeps the wasted time of a long
// kernel under a few percent. They add latency to the run, not to the
// kernel's time, which comes from the profiling events.
const (
	minPoll = 5 * time.Microsecond
	maxPoll = 2 * time.Millisecond
)

// clQueued is CL_QUEUED: the command waits in the host's queue.
const clQueued = 3

// waitEvent polls ev until its command completes or ctx is done; unlike
// clWaitForEvents it can give up. A command that failed returns its error
// code. A driver may keep a command queued until the queue is flushed; a
// command still queued at the second poll gets one flush, if flush is not
// nil (see Session.await).
func waitEvent(ctx context.Context, ev *cl.Event, flush func() error) error {
	delay := minPoll
	var timer *time.Timer
	for polls := 0; ; polls++ {
		st, err := eventStatus(ev)
		if err != nil {
			return wrap("query kernel status", err)
		}
		if st == 0 { // CL_COMPLETE
			return nil
		}
		if st < 0 {
			return wrap("run kernel", cl.ErrOther(st))
		}
		if st == clQueued && polls == 1 && flush != nil {
			if err := flush(); err != nil {
				return wrap("flush queue", err)
			}
		}
		if timer == nil {
			timer = time.NewTimer(delay)
			defer timer.Stop()
		} else {
			timer.Reset(delay)
		}
		select {
		case <-ctx.Done():
			return &Error{Kind: TimedOut, Op: "wait for kernel", Err: context.Cause(ctx)}
		case <-timer.C:
		}
		delay = min(2*delay, maxPoll)
	}
}

// ReadOutput copies the first output into dst (which must hold
// Args.OutputLen floats) and returns the device time of the transfer in
// nanoseconds.
func (s *Session) ReadOutput(a *Args, dst []float32) (int64, error) {
	if len(dst) != a.OutputLen() || len(dst) == 0 {
		return 0, fmt.Errorf("opencl: read output into %d floats, want %d", len(dst), a.OutputLen())
	}
	return s.read(a.outs[0], unsafe.Pointer(&dst[0]))
}

// ReadOutputs copies every output into dst, one slice of Args.OutputBytes
// bytes each, and returns the device time of the transfers in nanoseconds.
func (s *Session) ReadOutputs(a *Args, dst [][]byte) (int64, error) {
	if len(dst) != len(a.outs) {
		return 0, fmt.Errorf("opencl: read %d outputs into %d slices", len(a.outs), len(dst))
	}
	var total int64
	for i, o := range a.outs {
		if len(dst[i]) != o.bytes {
			return 0, fmt.Errorf("opencl: read output %d of %d bytes into %d", i, o.bytes, len(dst[i]))
		}
		ns, err := s.read(o, unsafe.Pointer(&dst[i][0]))
		if err != nil {
			return 0, err
		}
		total += ns
	}
	return total, nil
}

func (s *Session) read(o output, dst unsafe.Pointer) (int64, error) {
	var ev *cl.Event
	var err error
	if o.region != [3]int{} {
		ev, err = s.queue.EnqueueReadImage(o.mem, true, [3]int{}, o.region, 0, 0, unsafe.Slice((*byte)(dst), o.bytes), nil)
	} else {
		ev, err = s.queue.EnqueueReadBuffer(o.mem, true, 0, o.bytes, dst, nil)
	}
	defer ev.Release()
	if err != nil {
		return 0, wrap("read output", err)
	}
	ns, _ := elapsed(ev)
	return ns, nil
}

// elapsed is END - START of a finished event, in nanoseconds.
func elapsed(ev *cl.Event) (int64, error) {
	start, err := ev.GetEventProfilingInfo(cl.ProfilingInfoCommandStart)
	if err != nil {
		return 0, err
	}
	end, err := ev.GetEventProfilingInfo(cl.ProfilingInfoCommandEnd)
	if err != nil {
		return 0, err
	}
	return end - start, nil
}

// tempSource matches the temporary file a compiler names the source by in
// its log (PoCL: .../kcache/tempfile_XXXX.cl), which means nothing to the
// kernel's author.
var tempSource = regexp.MustCompile(`(?:/[^\s:]*)?/tempfile_\w+\.cl`)

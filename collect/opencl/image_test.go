package opencl

import (
	"strings"
	"testing"

	"github.com/jgillich/go-opencl/cl"

	"github.com/augur-tuning/augur/datasets"
)

// TestImageFormat checks the pixel formats of image arguments: a family's
// floats (Data), and a spec's pixels of bytes, integers or floats, one or
// four channels, in their channel types; anything else refused with a line naming the image.
func TestImageFormat(t *testing.T) {
	u8, _, _ := datasets.ParseElem("uint8")
	f32, _, _ := datasets.ParseElem("float")
	f16, _, _ := datasets.ParseElem("half")
	i32, _, _ := datasets.ParseElem("int32")
	tests := []struct {
		name  string
		arg   datasets.Arg
		order cl.ChannelOrder
		dtype cl.ChannelDataType
		pixel int
		err   string
	}{
		{"family floats", datasets.Arg{Data: []float32{1, 2}}, cl.ChannelOrderR, cl.ChannelDataTypeFloat, 4, ""},
		{"floats", datasets.Arg{Bytes: make([]byte, 8), Elem: f32, Channels: 1}, cl.ChannelOrderR, cl.ChannelDataTypeFloat, 4, ""},
		{"RGBA floats", datasets.Arg{Bytes: make([]byte, 32), Elem: f32, Channels: 4}, cl.ChannelOrderRGBA, cl.ChannelDataTypeFloat, 16, ""},
		{"bytes", datasets.Arg{Bytes: make([]byte, 3), Elem: u8}, cl.ChannelOrderR, cl.ChannelDataTypeUNormInt8, 1, ""},
		{"RGBA bytes", datasets.Arg{Bytes: make([]byte, 8), Elem: u8, Channels: 4}, cl.ChannelOrderRGBA, cl.ChannelDataTypeUNormInt8, 4, ""},
		{"halves", datasets.Arg{Bytes: make([]byte, 16), Elem: f16, Channels: 4}, cl.ChannelOrderRGBA, cl.ChannelDataTypeHalfFloat, 8, ""},
		{"bytes read as integers", datasets.Arg{Bytes: make([]byte, 8), Elem: u8, Channels: 4, ChannelType: "UNSIGNED_INT8"}, cl.ChannelOrderRGBA, cl.ChannelDataTypeUnsignedInt8, 4, ""},
		{"ints", datasets.Arg{Bytes: make([]byte, 8), Elem: i32, ChannelType: "SIGNED_INT32"}, cl.ChannelOrderR, cl.ChannelDataTypeSignedInt32, 4, ""},
		{"ints with no channel type", datasets.Arg{Name: "m", Bytes: make([]byte, 8), Elem: i32}, 0, 0, 0, "image m holds int32 with no channel type"},
		{"a channel type OpenCL lacks", datasets.Arg{Name: "m", Bytes: make([]byte, 8), Elem: i32, ChannelType: "INT32"}, 0, 0, 0, `channel type "INT32"`},
		{"three channels", datasets.Arg{Name: "m", Bytes: make([]byte, 12), Elem: f32, Channels: 3}, 0, 0, 0, "image m has 3 channels"},
		{"part of a pixel", datasets.Arg{Name: "m", Bytes: make([]byte, 6), Elem: u8, Channels: 4}, 0, 0, 0, "not whole pixels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pixels, f, pixel, err := imageFormat(tc.arg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || f.ChannelOrder != tc.order || f.ChannelDataType != tc.dtype || pixel != tc.pixel || len(pixels)%pixel != 0 {
				t.Errorf("format %v, %d bytes a pixel, %d bytes (%v); want %v %v, %d", f, pixel, len(pixels), err, tc.order, tc.dtype, tc.pixel)
			}
		})
	}
}

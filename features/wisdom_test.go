package features

import (
	"errors"
	"testing"
)

func TestParseWisdomLine(t *testing.T) {
	tests := []struct {
		line string
		want WisdomRecord
		err  error
	}{
		{`{"kernel_version":"v1","device":"d","shape":[64,64,3,3],"config":[1,2],"time_ns":12.5}`,
			WisdomRecord{"v1", "d", Task{64, 64, 3, 3}, Config{1, 2}, 12.5}, nil},
		{"  {\"kernel_version\":\"v1\",\"shape\":[1],\"config\":[0],\"time_ns\":1}\n", WisdomRecord{"v1", "", Task{1}, Config{0}, 1}, nil},
		{``, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1],"config":[0],"time_ns":1}{}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1],"config":[0],"time_ns":1,"extra":2}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"","shape":[1],"config":[0],"time_ns":1}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[],"config":[0],"time_ns":1}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1,2,3,4,5,6,7,8,9],"config":[0],"time_ns":1}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1.5],"config":[0],"time_ns":1}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1],"config":null,"time_ns":1}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1],"config":[0],"time_ns":0}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1],"config":[0],"time_ns":1e400}`, WisdomRecord{}, ErrSyntax},
		{`{"kernel_version":"v1","shape":[1],"con`, WisdomRecord{}, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseWisdomLine([]byte(tt.line))
		if !errors.Is(err, tt.err) {
			t.Errorf("ParseWisdomLine(%q) error %v, want %v", tt.line, err, tt.err)
			continue
		}
		if err == nil && (got.KernelVersion != tt.want.KernelVersion || got.Device != tt.want.Device ||
			!Config(got.Shape).Equal(Config(tt.want.Shape)) || !got.Config.Equal(tt.want.Config) || got.TimeNs != tt.want.TimeNs) {
			t.Errorf("ParseWisdomLine(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

// FuzzParseWisdomLine checks that a line either fails with ErrSyntax or
// reads a record that writes back to a line reading the same record.
func FuzzParseWisdomLine(f *testing.F) {
	f.Add([]byte(`{"kernel_version":"v1","device":"d","shape":[64,64,3,3],"config":[1,2],"time_ns":12.5}`))
	f.Add([]byte(`{"kernel_version":"v1","shape":[1],"config":[-3],"time_ns":1e-300}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseWisdomLine(line)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		out, err := AppendWisdomLine(nil, r)
		if err != nil {
			t.Fatalf("AppendWisdomLine(%+v): %v", r, err)
		}
		if out[len(out)-1] != '\n' {
			t.Fatalf("line %q lacks its newline", out)
		}
		back, err := ParseWisdomLine(out)
		if err != nil {
			t.Fatalf("ParseWisdomLine(%q) of a written line: %v", out, err)
		}
		if back.KernelVersion != r.KernelVersion || back.Device != r.Device || !Config(back.Shape).Equal(Config(r.Shape)) ||
			!back.Config.Equal(r.Config) || back.TimeNs != r.TimeNs {
			t.Fatalf("round trip %+v -> %q -> %+v", r, out, back)
		}
	})
}

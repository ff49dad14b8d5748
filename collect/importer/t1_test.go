package importer

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

const t1Path = "testdata/convolution_milo.T1.json"

func readSpec(t testing.TB) *Spec {
	t.Helper()
	f, err := os.Open(t1Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadT1(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadT1(t *testing.T) {
	s := readSpec(t)
	if s.Name != "convolution_milo" {
		t.Errorf("Name = %q, want convolution_milo", s.Name)
	}
	wantParams := []features.Param{
		{Name: "block_size_x", Values: []int{16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256}},
		{Name: "block_size_y", Values: []int{1, 2, 4, 8, 16}},
		{Name: "tile_size_x", Values: []int{1, 2, 3, 4}},
		{Name: "tile_size_y", Values: []int{1, 2, 3, 4}},
		{Name: "read_only", Values: []int{0, 1}},
		{Name: "use_padding", Values: []int{0, 1}},
		{Name: "use_shmem", Values: []int{0, 1}},
		{Name: "use_cmem", Values: []int{1}},
		{Name: "filter_height", Values: []int{15}},
		{Name: "filter_width", Values: []int{15}},
	}
	if !reflect.DeepEqual(s.Params, wantParams) {
		t.Errorf("Params = %v\nwant %v", s.Params, wantParams)
	}
	if want := (features.Config{16, 16, 1, 1, 0, 1, 1, 1, 15, 15}); !s.Default.Equal(want) {
		t.Errorf("Default = %v, want %v", s.Default, want)
	}
	if want := []int{4096, 4096}; !reflect.DeepEqual(s.ProblemSize, want) {
		t.Errorf("ProblemSize = %v, want %v", s.ProblemSize, want)
	}
	if s.ProblemSizeNames != nil {
		t.Errorf("ProblemSizeNames = %v, want none", s.ProblemSizeNames)
	}
	if len(s.Conditions) != 4 || len(s.Constraints) != 4 {
		t.Fatalf("%d conditions and %d constraints, want 4 each", len(s.Conditions), len(s.Constraints))
	}
	// The README counts 4,362 valid configurations in this space.
	space, err := features.NewSpace(s.Params, s.Constraints)
	if err != nil {
		t.Fatal(err)
	}
	if got := space.Len(); got != 4362 {
		t.Errorf("space has %d valid configurations, want 4362", got)
	}
	if !space.Valid(s.Default) {
		t.Errorf("the defaults %s are not valid", space.Format(s.Default))
	}
}

// TestReadT1ProblemSizeNames reads augur's names of the problem sizes.
func TestReadT1ProblemSizeNames(t *testing.T) {
	base, err := os.ReadFile(t1Path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(base), `"General": {`, `"Augur": {"ProblemSizeNames": ["w", "h"]}, "General": {`, 1)
	s, err := ReadT1(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"w", "h"}; !reflect.DeepEqual(s.ProblemSizeNames, want) {
		t.Errorf("ProblemSizeNames = %v, want %v", s.ProblemSizeNames, want)
	}
}

func TestReadT1Errors(t *testing.T) {
	base, err := os.ReadFile(t1Path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"float value", `"[1, 2, 3, 4]"`, `"[1, 2.5, 3, 4]"`, `"tile_size_x"`},
		{"string value", `"[0, 1]"`, `"['a', 'b']"`, `"read_only"`},
		{"not a list", `"[1, 2, 4, 8, 16]"`, `"1, 2"`, `"block_size_y"`},
		{"empty list", `"[1]"`, `"[]"`, `"use_cmem"`},
		{"float default", `"Default": 15`, `"Default": 1.5`, `"filter_height"`},
		{"string in a condition", `block_size_x*block_size_y<=1024`, `block_size_x == "a"`, "character"},
		{"malformed JSON", `"General": {`, `"General": [`, "T1"},
		{"problem size names too few", `"General": {`, `"Augur": {"ProblemSizeNames": ["n"]}, "General": {`, "1 names for 2 problem sizes"},
		{"problem size name twice", `"General": {`, `"Augur": {"ProblemSizeNames": ["n", "n"]}, "General": {`, `"n" twice`},
		{"problem size name no name", `"General": {`, `"Augur": {"ProblemSizeNames": ["n", "2d"]}, "General": {`, `"2d" is not a name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Replace(string(base), tt.old, tt.new, 1)
			if text == string(base) {
				t.Fatalf("%q not in the T1 file", tt.old)
			}
			_, err := ReadT1(strings.NewReader(text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
}

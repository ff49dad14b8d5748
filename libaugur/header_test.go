package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestStatusCodesMatchHeader keeps the Go codes equal to augur_types.h's.
func TestStatusCodesMatchHeader(t *testing.T) {
	data, err := os.ReadFile("../include/augur_types.h")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]status{
		"AUGUR_OK": statusOK, "AUGUR_ERR_ARG": statusArg, "AUGUR_ERR_HANDLE": statusHandle,
		"AUGUR_ERR_IO": statusIO, "AUGUR_ERR_BUNDLE": statusBundle, "AUGUR_ERR_VERSION": statusVersion,
		"AUGUR_ERR_DEVICE": statusDevice, "AUGUR_ERR_SHAPE": statusShape, "AUGUR_ERR_CONFIG": statusConfig,
		"AUGUR_ERR_NO_WISDOM": statusNoWisdom, "AUGUR_ERR_TRUNCATED": statusTruncated,
		"AUGUR_ERR_UNSUPPORTED": statusUnsupported, "AUGUR_ERR_UNTRUSTED": statusUntrusted, "AUGUR_ERR_INTERNAL": statusInternal,
		"AUGUR_MAX_PARAMS": maxParams,
		"AUGUR_PARAM_INT":  paramInt, "AUGUR_PARAM_FLOAT": paramFloat, "AUGUR_PARAM_STRING": paramString,
	}
	got := map[string]status{}
	for _, m := range regexp.MustCompile(`(?m)^#define (AUGUR_(?:OK|ERR_\w+|MAX_PARAMS|PARAM_\w+)) (\d+)`).FindAllSubmatch(data, -1) {
		v, _ := strconv.Atoi(string(m[2]))
		got[string(m[1])] = status(v)
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("%s = %d in the header (present %v), %d in Go", name, g, ok, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("header has %d codes, Go %d", len(got), len(want))
	}
}

// TestHeaderDeclaresExports checks that augur.h declares exactly the
// functions the library exports.
func TestHeaderDeclaresExports(t *testing.T) {
	header, err := os.ReadFile("../include/augur.h")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("export.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared, exported []string
	for _, m := range regexp.MustCompile(`(?m)^(?:int |const char \*)(augur_\w+)\(`).FindAllSubmatch(header, -1) {
		declared = append(declared, string(m[1]))
	}
	for _, m := range regexp.MustCompile(`(?m)^//export (augur_\w+)$`).FindAllSubmatch(src, -1) {
		exported = append(exported, string(m[1]))
	}
	exported = append(exported, "augur_last_error") // errors.c
	slices.Sort(declared)
	slices.Sort(exported)
	if !slices.Equal(declared, exported) {
		t.Errorf("augur.h declares %v\nlibaugur exports %v", declared, exported)
	}
}

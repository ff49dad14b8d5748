package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/augur-tuning/augur/features"
)

// versionInfo is what 'augur version' prints: enough to tell which augur
// wrote a bundle or a dataset and whether this one can read it.
type versionInfo struct {
	// Version is augur's own version (features.Version), which every
	// dataset and bundle records.
	Version string `json:"version"`
	// Module is the main module's version as the Go toolchain stamped it:
	// a tag such as v0.1.0 for 'go install ...@v0.1.0', "(devel)" for a
	// build from a checkout.
	Module string `json:"module"`
	// Commit is the VCS revision the binary was built from, with
	// "-dirty" when the tree had changes; empty when unknown.
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Go         string `json:"go"`
	// BundleFormat is the bundle layout this augur writes and reads
	// (features.BundleFormat); it refuses a newer one.
	BundleFormat int `json:"bundle_format"`
}

// buildVersion reads the version from the build information of the
// running binary.
func buildVersion() versionInfo {
	v := versionInfo{Version: features.Version, Module: "(unknown)", BundleFormat: features.BundleFormat}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Module, v.Go = bi.Main.Version, bi.GoVersion
	if v.Module == "" {
		v.Module = "(devel)"
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && v.Commit != "" {
		v.Commit += "-dirty"
	}
	return v
}

// String is the version in one line.
func (v versionInfo) String() string {
	s := fmt.Sprintf("augur %s (module %s", v.Version, v.Module)
	if v.Commit != "" {
		s += ", commit " + v.Commit
	}
	return s + fmt.Sprintf(", %s, bundle format %d)", v.Go, v.BundleFormat)
}

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags("version", "[--json]", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object: version, module, commit, commit_time, go, bundle_format")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	v := buildVersion()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(v)
	}
	_, err := fmt.Fprintln(stdout, v)
	return err
}

//go:build !linux

package collect

// residentBytes is unknown off Linux: Options.MaxGrowthBytes is ignored.
func residentBytes() int64 { return 0 }

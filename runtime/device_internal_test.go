package runtime

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-PCIE-40GB", "pocl-cpu"}
	for _, tc := range []struct{ name, want string }{
		{"nvidia-a100", "NVIDIA A100-PCIE-40GB"},
		{"h200", "NVIDIA H200"},
		{"POCL CPU", "pocl-cpu"},
	} {
		if got := closest(tc.name, names, 1); len(got) != 1 || got[0] != tc.want {
			t.Errorf("closest(%q) = %v, want %s", tc.name, got, tc.want)
		}
	}
}

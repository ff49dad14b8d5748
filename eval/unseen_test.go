package eval

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

func TestUnseenRule(t *testing.T) {
	dev := func(copyPct, fleetPct float64) UnseenDevice {
		return UnseenDevice{Pct: map[string]float64{features.UnseenCopy: copyPct, features.UnseenFleet: fleetPct}}
	}
	tests := []struct {
		name string
		devs []UnseenDevice
		want string
	}{
		{"none", nil, features.UnseenCopy},
		{"fleet better everywhere", []UnseenDevice{dev(80, 90), dev(70, 71)}, features.UnseenFleet},
		{"a tie goes to the fleet", []UnseenDevice{dev(80, 80)}, features.UnseenFleet},
		{"fleet worse on one device", []UnseenDevice{dev(80, 99), dev(90, 89.9)}, features.UnseenCopy},
		{"fleet better on average, worse on one", []UnseenDevice{dev(50, 100), dev(95, 90), dev(60, 99)}, features.UnseenCopy},
		{"a score missing", []UnseenDevice{{Pct: map[string]float64{features.UnseenCopy: 80}}}, features.UnseenCopy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unseenRule(tt.devs); got != tt.want {
				t.Errorf("unseenRule = %q, want %q", got, tt.want)
			}
		})
	}
}

// bothConv2D loads the conv2d training data of the H200 and the H100.
func bothConv2D(t *testing.T) *train.Data {
	t.Helper()
	d, err := train.Load(fleetDir(t, false, "h200-train", "h100-train"), "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestChooseUnseen leaves each of two real devices out of a fleet bundle
// and checks the policy recorded against the scores, and that the runtime
// follows it for a device the bundle has no model of.
func TestChooseUnseen(t *testing.T) {
	d := bothConv2D(t)
	opt := train.Options{Kernel: "conv2d", Seed: 1, GBRT: train.GBRTOptions{Trees: 20}}
	b, mr, err := train.FitFleetBundle(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ChooseUnseen(b, d, mr)
	if err != nil {
		t.Fatal(err)
	}
	u := b.Unseen
	if u == nil || rep == nil {
		t.Fatal("no unseen-device policy for data of two devices")
	}
	if u.Devices != 2 || u.Shapes != 42 || len(rep.Devices) != 2 {
		t.Errorf("policy scored %d devices, %d shapes (report: %d devices), want 2, 42", u.Devices, u.Shapes, len(rep.Devices))
	}
	if want := unseenRule(rep.Devices); u.Policy != want || rep.Policy != want {
		t.Errorf("policy %q, report %q; the scores %+v call for %q", u.Policy, rep.Policy, rep.Devices, want)
	}
	for _, dev := range rep.Devices {
		for _, p := range unseenPolicies {
			if v := dev.Pct[p]; !(v > 0 && v <= 100) {
				t.Errorf("%s, policy %s: %v%% of best, want in (0, 100]", dev.Device, p, v)
			}
		}
		// The two devices measured the same configurations, so every
		// copy was measured on the other.
		if n := dev.Judged[features.UnseenCopy]; n != 0 {
			t.Errorf("%s: %d copies judged by the model, want 0", dev.Device, n)
		}
	}
	var sb strings.Builder
	if err := features.WriteBundle(&sb, b); err != nil {
		t.Fatal(err)
	}
	read, err := features.ReadBundle([]byte(sb.String()))
	if err != nil || read.Unseen == nil || read.Unseen.Policy != u.Policy {
		t.Fatalf("ReadBundle: %v, policy %+v, want %q", err, read.Unseen, u.Policy)
	}
	other := d.Platforms[0]
	other.Name = "A Future GPU"
	ch, err := runtime.FromBundle(read, runtime.Options{Platform: &other})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{features.UnseenCopy: runtime.SourceCopy, features.UnseenFleet: runtime.SourceFleet}[u.Policy]; ch.Source() != want {
		t.Errorf("runtime source %q under policy %q, want %q", ch.Source(), u.Policy, want)
	}

	var one []int
	for i, s := range d.Samples() {
		if s.Platform == 0 {
			one = append(one, i)
		}
	}
	b, mr, err = train.FitFleetBundle(d.Subset(one), opt)
	if err != nil {
		t.Fatal(err)
	}
	b.Unseen = u // ChooseUnseen clears a policy it cannot choose
	if rep, err = ChooseUnseen(b, d.Subset(one), mr); err != nil {
		t.Fatal(err)
	}
	if b.Unseen != nil || rep != nil {
		t.Errorf("one device's data: policy %+v, report %+v; want none", b.Unseen, rep)
	}
}

// TestChooseUnseenAfterTrain chooses the policy for a bundle that Train
// wrote, as 'augur train' does: each device left out in turn, with the
// fleet model's learner, and the report prints the policy.
func TestChooseUnseenAfterTrain(t *testing.T) {
	dir := fleetDir(t, false, "h200-train", "h100-train")
	opt := train.Options{Kernel: "conv2d", Folds: 1, Seed: 1, GBRT: train.GBRTOptions{Trees: 20}}
	b, trep, err := train.Train(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	d, err := train.Load(dir, "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	var fleet train.ModelReport
	for _, m := range trep.Models {
		if m.Name == train.FleetModel {
			fleet = m
		}
	}
	rep, err := ChooseUnseen(b, d, fleet)
	if err != nil {
		t.Fatal(err)
	}
	if b.Unseen == nil || rep == nil || b.Unseen.Devices != 2 || b.Unseen.Policy != rep.Policy {
		t.Errorf("unseen-device policy %+v, report %+v; want one of 2 devices", b.Unseen, rep)
	}
	if _, err := ChooseUnseen(b, d, train.ModelReport{Name: "fleet"}); err == nil || !strings.Contains(err.Error(), "no fitted learner") {
		t.Errorf("ChooseUnseen with a report of no fitted model: err = %v", err)
	}
}

package eval

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

func TestUnseenRule(t *testing.T) {
	tests := []struct {
		name string
		devs [][2]float64 // (copy, fleet)
		want string
	}{
		{"none", nil, features.UnseenCopy},
		{"fleet better everywhere", [][2]float64{{80, 90}, {70, 71}}, features.UnseenFleet},
		{"a tie goes to the fleet", [][2]float64{{80, 80}}, features.UnseenFleet},
		{"fleet worse on one device", [][2]float64{{80, 99}, {90, 89.9}}, features.UnseenCopy},
		{"fleet better on average, worse on one", [][2]float64{{50, 100}, {95, 90}, {60, 99}}, features.UnseenCopy},
		{"a score missing", [][2]float64{{80, 0}}, features.UnseenCopy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, geo, worst := unseenRule(tt.devs)
			if got != tt.want {
				t.Errorf("unseenRule = %q, want %q", got, tt.want)
			}
			if len(tt.devs) > 0 && (geo[features.UnseenCopy] <= 0 || worst[features.UnseenCopy] > geo[features.UnseenCopy]+1e-9) {
				t.Errorf("copy: geometric mean %v, worst %v", geo[features.UnseenCopy], worst[features.UnseenCopy])
			}
		})
	}
}

// TestDecideUnseen: each scoring decides its own policy, and devices that
// had another of their type to copy from decide alone when there are any.
func TestDecideUnseen(t *testing.T) {
	dev := func(same bool, measured, fresh [2]float64) UnseenDevice {
		dv := UnseenDevice{SameType: same, NewShapes: 10,
			NewPct: map[string]float64{features.UnseenCopy: fresh[0], features.UnseenFleet: fresh[1]}}
		if measured != [2]float64{} {
			dv.Shapes = 10
			dv.Pct = map[string]float64{features.UnseenCopy: measured[0], features.UnseenFleet: measured[1]}
		}
		return dv
	}
	tests := []struct {
		name              string
		devs              []UnseenDevice
		policy, newShapes string
		newCopy, newFleet float64 // NewPctGeomean, 0: not checked
	}{
		{"copy the measured, search the new", []UnseenDevice{dev(true, [2]float64{96, 93}, [2]float64{93, 95}), dev(true, [2]float64{96, 96}, [2]float64{94, 96})},
			features.UnseenCopy, features.UnseenFleet, 0, 0},
		{"a device of another type does not decide", []UnseenDevice{dev(true, [2]float64{96, 93}, [2]float64{93, 95}), dev(false, [2]float64{46, 45}, [2]float64{60, 46})},
			features.UnseenCopy, features.UnseenFleet, 93, 95},
		{"without same-type devices every device decides", []UnseenDevice{dev(false, [2]float64{96, 97}, [2]float64{93, 95}), dev(false, [2]float64{46, 45}, [2]float64{60, 46})},
			features.UnseenCopy, features.UnseenCopy, 0, 0},
		{"no shape measured by another device", []UnseenDevice{dev(true, [2]float64{}, [2]float64{73, 97}), dev(true, [2]float64{}, [2]float64{57, 99})},
			features.UnseenCopy, features.UnseenFleet, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := decideUnseen(tt.devs)
			if u.Policy != tt.policy || u.NewShapes != tt.newShapes {
				t.Errorf("policies %q, %q; want %q, %q", u.Policy, u.NewShapes, tt.policy, tt.newShapes)
			}
			if u.Devices != len(tt.devs) || u.Shapes != 10*len(tt.devs) {
				t.Errorf("%d devices, %d shapes; want %d, %d", u.Devices, u.Shapes, len(tt.devs), 10*len(tt.devs))
			}
			if tt.newCopy > 0 && (math.Abs(u.NewPctGeomean[features.UnseenCopy]-tt.newCopy) > 1e-9 || math.Abs(u.NewPctGeomean[features.UnseenFleet]-tt.newFleet) > 1e-9) {
				t.Errorf("new shapes' figures %v, want copy %v, fleet %v", u.NewPctGeomean, tt.newCopy, tt.newFleet)
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
	if want := decideUnseen(rep.Devices); u.Policy != want.Policy || rep.Policy != want.Policy || u.NewShapes != want.NewShapes || rep.NewShapes != want.NewShapes {
		t.Errorf("policies %q, %q, report %q, %q; the scores %+v call for %q, %q", u.Policy, u.NewShapes, rep.Policy, rep.NewShapes, rep.Devices, want.Policy, want.NewShapes)
	}
	for _, dev := range rep.Devices {
		// The two GPUs measured the same shapes.
		if !dev.SameType || dev.Shapes != dev.NewShapes {
			t.Errorf("%s: same type %v, %d shapes measured by the other of %d", dev.Device, dev.SameType, dev.Shapes, dev.NewShapes)
		}
		for _, p := range unseenPolicies {
			if v, w := dev.Pct[p], dev.NewPct[p]; !(v > 0 && v <= 100 && w > 0 && w <= 100) {
				t.Errorf("%s, policy %s: %v%% and as new shapes %v%% of best, want in (0, 100]", dev.Device, p, v, w)
			}
		}
		// The fleet search does not copy: new shapes or not, the same picks.
		if dev.Pct[features.UnseenFleet] != dev.NewPct[features.UnseenFleet] {
			t.Errorf("%s: fleet search %v%%, as new shapes %v%%", dev.Device, dev.Pct[features.UnseenFleet], dev.NewPct[features.UnseenFleet])
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
	if err != nil || read.Unseen == nil || read.Unseen.Policy != u.Policy || read.Unseen.NewShapes != u.NewShapes {
		t.Fatalf("ReadBundle: %v, policy %+v, want %q, %q", err, read.Unseen, u.Policy, u.NewShapes)
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

// TestChooseUnseenOneDevice: with no device to leave out, the policy for
// new shapes follows the device's own held-out shapes: the model's picks
// (the selection's score) against copying each shape's nearest other.
func TestChooseUnseenOneDevice(t *testing.T) {
	d := bothConv2D(t)
	var one []int
	for i, s := range d.Samples() {
		if s.Platform == 0 {
			one = append(one, i)
		}
	}
	d = d.Subset(one)
	report := func(heldOut string, pct float64) train.ModelReport {
		return train.ModelReport{Name: "fleet", Selection: &train.Selection{Chosen: "a", HeldOut: heldOut,
			Scores: []train.PickScore{{Name: "b", PctGeomean: 100}, {Name: "a", PctGeomean: pct}}}}
	}
	tests := []struct {
		name      string
		fleet     train.ModelReport
		newShapes string // "": no policy
	}{
		{"the model picks better", report("shapes", 100), features.UnseenFleet},
		{"copying picks better", report("shapes", 1), features.UnseenCopy},
		{"learner given: no evidence", train.ModelReport{Name: "fleet"}, ""},
		{"selected on configurations: no evidence", report("configurations", 100), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &features.Bundle{Unseen: &features.UnseenPolicy{Policy: features.UnseenFleet}}
			rep, err := ChooseUnseen(b, d, tt.fleet)
			if err != nil {
				t.Fatal(err)
			}
			if tt.newShapes == "" {
				if b.Unseen != nil || rep != nil {
					t.Errorf("policy %+v, report %+v; want none", b.Unseen, rep)
				}
				return
			}
			if b.Unseen == nil || rep == nil || rep.Own == nil {
				t.Fatalf("policy %+v, report %+v; want both", b.Unseen, rep)
			}
			if b.Unseen.Policy != features.UnseenCopy || b.Unseen.NewShapes != tt.newShapes || rep.NewShapes != tt.newShapes {
				t.Errorf("policies %q, %q (report %q); want copy, %q", b.Unseen.Policy, b.Unseen.NewShapes, rep.NewShapes, tt.newShapes)
			}
			if c := rep.Own.CopyPct; !(c > 0 && c <= 100) || rep.Own.Shapes < 2 || rep.Own.Device != d.Platforms[0].Slug() {
				t.Errorf("own evidence %+v", *rep.Own)
			}
		})
	}
}

// TestCopySources: the devices a held-out device copies from are those of
// its type with data, else every other with data, as the runtime's are.
func TestCopySources(t *testing.T) {
	ps := []features.Platform{{Name: "g1", Type: "gpu"}, {Name: "g2", Type: "gpu"}, {Name: "c1", Type: "cpu"}, {Name: "u"}}
	tests := []struct {
		name    string
		present []bool
		held    int
		want    []bool
	}{
		{"a GPU copies from GPUs", []bool{true, true, true, true}, 0, []bool{false, true, false, false}},
		{"the only CPU copies from every other", []bool{true, true, true, true}, 2, []bool{true, true, false, true}},
		{"a GPU without data is no source", []bool{true, false, true, true}, 0, []bool{false, false, true, true}},
		{"an unknown type copies from every other", []bool{true, true, true, true}, 3, []bool{true, true, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := copySources(ps, tt.present, tt.held); !slices.Equal(got, tt.want) {
				t.Errorf("copySources = %v, want %v", got, tt.want)
			}
		})
	}
}

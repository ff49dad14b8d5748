package runtime

import (
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestCacheFull: a chooser whose cache is full keeps all but one of the
// shapes it remembers when a new one arrives; emptying it made a caller
// that cycles through one shape more than CacheSize search every call.
func TestCacheFull(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := New(data, Options{CacheSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	shapes := []features.Task{{640, 480, 3, 3}, {800, 600, 3, 3}, {1024, 768, 3, 3}, {1280, 720, 3, 3}, {1920, 1080, 3, 3}}
	for i, s := range shapes {
		if _, err := ch.Choose(s); err != nil {
			t.Fatal(err)
		}
		if want := min(i+1, 4); len(ch.cache) != want {
			t.Errorf("after %d shapes: %d cached, want %d", i+1, len(ch.cache), want)
		}
	}
	if _, ok := ch.cache[shapes[4].Key()]; !ok {
		t.Error("the newest shape is not cached")
	}
}

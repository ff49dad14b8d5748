package train_test

import (
	"fmt"
	"log"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// ExampleData_Samples adds three measured rows to a Data and walks their
// samples: the configuration each ran, on which task, and how long it took.
func ExampleData_Samples() {
	d := &train.Data{Features: []string{"param.wg"}}
	task := features.Task{1024, 1024}
	for _, wg := range []int{8, 16, 32} {
		timeNs := 4e6 / float64(wg)
		s := train.Sample{Task: task, Config: features.Config{wg}, TimeNs: timeNs, RefTimeNs: 1e6}
		if err := d.Append([]float64{float64(wg)}, 0, s); err != nil {
			log.Fatal(err)
		}
	}
	for i, s := range d.Samples() {
		fmt.Printf("row %d: wg=%d on %v, %.0f us\n", i, s.Config[0], s.Task, s.TimeNs/1e3)
	}
	fmt.Println("row 1 ran", d.Sample(1).Config)
	// Output:
	// row 0: wg=8 on [1024 1024], 500 us
	// row 1: wg=16 on [1024 1024], 250 us
	// row 2: wg=32 on [1024 1024], 125 us
	// row 1 ran [16]
}

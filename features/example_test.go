package features_test

import (
	"fmt"

	"github.com/augur-tuning/augur/features"
)

func Example() {
	s, err := features.NewSpace([]features.Param{
		{Name: "Xwpt", Values: []int{1, 2, 4, 8}},
		{Name: "VW", Values: []int{1, 2, 4, 8}},
	}, []string{"Xwpt % VW == 0"})
	if err != nil {
		panic(err)
	}
	c, err := s.Parse("Xwpt=4,VW=2")
	fmt.Println(s.RawSize(), s.Len(), s.Format(c), err)
	fmt.Println(s.Check(features.Config{2, 4}))
	// Output:
	// 16 10 Xwpt=4,VW=2 <nil>
	// features: constraint violated: Xwpt % VW == 0 does not hold for Xwpt=2,VW=4
}

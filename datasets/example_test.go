package datasets_test

import (
	"fmt"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func ExampleConv2D() {
	k := datasets.Conv2D()
	fmt.Println(k.Name, k.TaskNames)
	fmt.Printf("%d configurations, %d valid\n", k.Space.RawSize(), k.Space.Len())
	fmt.Println("reference:", k.Space.Format(k.Reference))
	l, _ := k.Geometry(features.Task{1920, 1080, 5, 5}, k.Reference)
	fmt.Println("global", l.Global, "local", l.Local)
	// Output:
	// conv2d [width height filter_w filter_h]
	// 12288 configurations, 6400 valid
	// reference: Xwg=8,Ywg=8,Xwpt=1,Ywpt=1,LS=0,VW=1,PAD=0,UNR=0
	// global [1920 1080 1] local [8 8 1]
}

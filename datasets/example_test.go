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

// The paper's 104 stencils on a small array, and the parameter groups of
// its grouped searches.
func ExampleStencilSuite() {
	k := datasets.Stencil()
	suite := datasets.StencilSuite(64, 64, 64)
	fmt.Println(len(suite), "kernels; the first:", features.FormatTask(k.TaskNames, suite[0]))
	fmt.Printf("%d configurations, %d valid\n", k.Space.RawSize(), k.Space.Len())
	l, _ := k.Geometry(suite[1], k.Reference)
	fmt.Println("reference:", k.Space.Format(k.Reference), "global", l.Global, "local", l.Local)
	byDim, byOpt := datasets.StencilGroups()
	fmt.Println("by dimension:", byDim)
	fmt.Println("by optimization:", byOpt)
	// Output:
	// 104 kernels; the first: pattern=0,dims=1,radius=0,orient=0,nx=64,ny=64,nz=64
	// 34560 configurations, 3016 valid
	// reference: WX=32,WY=4,WZ=2,BX=1,CX=1,CY=1,CZ=1,technique=0 global [64 64 64] local [32 4 2]
	// by dimension: [[WX BX CX] [WY CY] [WZ CZ]]
	// by optimization: [[WX WY WZ] [BX] [CX CY CZ]]
}

// ExampleReadSpec reads a user's kernel from its T1 spec file: the tuning
// space, the shape features (its problem sizes) and the launch of a
// configuration, with no Go code for the kernel.
func ExampleReadSpec() {
	k, err := datasets.ReadSpec("../examples/rowsum/rowsum.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(k.Name, k.TaskNames, k.Space.Len(), "configurations")
	shape := features.Task{30000, 300} // cols, rows
	c, _ := k.Space.Parse("WG=256,RPW=2,VW=4,UNROLL=2")
	l, _ := k.Geometry(shape, c)
	fmt.Println(k.Options(shape, c))
	fmt.Println(l.Global[:l.Dims], l.Local[:l.Dims], l.LocalMemBytes)
	// Output:
	// rowsum [cols rows] 189 configurations
	// -DWG=256 -DRPW=2 -DVW=4 -DUNROLL=2
	// [256 300] [256 2] 2048
}

// Command oneshape measures what a model trained on one shape picks at
// the device's other shapes, against copying the training shape's best
// there: for each device and each of its first -max shapes, a model is
// fitted on that shape's rows alone (as 'augur train' fits a device's
// model), every other shape's measured configurations are ranked by it,
// and the top one and the copy are judged against the shape's best
// (where the copy was measured there). It printed the figures behind the
// runtime's rule for models of one shape (bench/RESULTS.md, session 26).
//
//	go run ./bench/oneshape -data datasets/data -kernel gemm
//	go run ./bench/oneshape -data datasets/data -spec examples/rowsum/rowsum.json
package main

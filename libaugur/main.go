package main

// main is empty: a c-shared or c-archive build needs a main package, and
// the library's entry points are the //export functions of export.go.
// Built without cgo, the package is an empty program.
func main() {}

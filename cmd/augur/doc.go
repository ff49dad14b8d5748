// Command augur collects timings of OpenCL kernel configurations, trains
// surrogate models on them and chooses configurations from the models.
//
// Usage:
//
//	augur devices [--json]
//	augur kernels [--json]
//	augur collect --kernel NAME --out DIR [--device N|NAME] [--shapes 'k=v,...;...'] [--sample all|random:N|random-each:N|grid] [--repeats R] [--seed S]
//	augur import --from kerneltuner|t4 --kernel NAME --out DIR [--spec T1.json] [--device NAME] [--task-params a,b] FILE...
//	augur train --data DIR --kernel NAME --out FILE [--model gbrt|rf] [--folds K] [--seed S] [--invalid ignore|zeta] [--zeta Z] [learner flags]
//	augur export --data DIR --kernel NAME --csv FILE [--invalid ignore|zeta]
//	augur inspect --model FILE
//	augur choose --model FILE --shape 'k=v,...' [--json]
//	augur tune --kernel NAME --shape 'k=v,...' [--budget N] [--threshold T] [--out DIR] [--device N|NAME]
//	augur eval --data DIR --kernel NAME [--json] [--plots DIR] [--holdout shapes]
//	augur quickstart [--out DIR] [--device N|NAME] [--shapes S] [--test-shapes S]
//
// Every subcommand takes --help. Errors print one line and exit non-zero.
package main

module github.com/augur-tuning/augur

go 1.26.8

require github.com/expr-lang/expr v1.17.8

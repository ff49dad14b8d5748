// choose asks libaugur for the configuration and launch plan of one shape:
//
//	cc -Iinclude examples/c/choose.c -Lbin -laugur -Wl,-rpath,'$ORIGIN/bin' -o choose
//	./choose testdata/conv2d-pocl.augur 1920 1080 5 5
//
// The arguments are a bundle and the shape's values, in the order the
// bundle names them (printed first).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur.h"

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: choose BUNDLE VALUE...\n");
		return 2;
	}
	augur_handle h;
	if (augur_open_file(argv[1], NULL, &h) != AUGUR_OK) {
		fprintf(stderr, "choose: %s\n", augur_last_error());
		return 1;
	}
	char names[1024];
	int32_t nshape = 0, nparams = 0;
	if (augur_shape_names(h, names, sizeof names, &nshape) != AUGUR_OK) {
		fprintf(stderr, "choose: %s\n", augur_last_error());
		return 1;
	}
	printf("libaugur %s, shape: %s\n", augur_version(), names);

	int64_t shape[AUGUR_MAX_SHAPE];
	int n = argc - 2;
	if (n > AUGUR_MAX_SHAPE) {
		fprintf(stderr, "choose: %d shape values; a shape has at most %d\n", n, AUGUR_MAX_SHAPE);
		augur_close(h);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		shape[i] = strtoll(argv[i + 2], NULL, 10);
	}
	augur_config cfg;
	augur_plan plan;
	if (augur_choose(h, shape, n, &cfg, &plan) != AUGUR_OK) {
		fprintf(stderr, "choose: %s\n", augur_last_error());
		augur_close(h);
		return 1;
	}
	if (augur_param_names(h, names, sizeof names, &nparams) != AUGUR_OK) {
		fprintf(stderr, "choose: %s\n", augur_last_error());
		return 1;
	}
	printf("source: %s\nconfig:", cfg.source);
	char *name = strtok(names, ",");
	for (int i = 0; i < cfg.n && name != NULL; i++, name = strtok(NULL, ",")) {
		printf(" %s=%lld", name, (long long)cfg.values[i]);
	}
	printf("\nplan: dims=%d global=%lldx%lldx%lld local=%lldx%lldx%lld local_mem=%lld\n", plan.dims,
	       (long long)plan.global[0], (long long)plan.global[1], (long long)plan.global[2],
	       (long long)plan.local[0], (long long)plan.local[1], (long long)plan.local[2],
	       (long long)plan.local_mem_bytes);
	printf("build options: %s\n", plan.build_options);
	augur_close(h);
	return 0;
}

// latency measures augur_choose through the C API: cold (a new shape each
// call, on a fresh chooser) and cached (one shape again and again), and
// prints p50 and p99 of each in microseconds; then augur_candidates with
// k = 5 on new shapes.
//
//	latency BUNDLE N
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "augur.h"

static double now_us(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void report(const char *what, double *t, int n) {
	qsort(t, n, sizeof *t, cmp);
	printf("%s: n=%d p50=%.3f us p99=%.3f us\n", what, n, t[n / 2], t[(int)(n * 0.99)]);
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: latency BUNDLE N\n");
		return 2;
	}
	int n = atoi(argv[2]);
	if (n < 1 || n > 4000) {
		fprintf(stderr, "latency: N must be in [1, 4000]\n");
		return 2;
	}
	augur_handle h;
	if (augur_open_file(argv[1], NULL, &h) != AUGUR_OK) {
		fprintf(stderr, "latency: %s\n", augur_last_error());
		return 1;
	}
	double *t = malloc(sizeof(double) * n);
	augur_config c;
	augur_plan p;
	for (int i = 0; i < n; i++) {
		int64_t shape[4] = {256 + i, 512 + 16 * (i % 7), 3 + 2 * (i % 3), 3 + 2 * (i % 3)};
		double t0 = now_us();
		if (augur_choose(h, shape, 4, &c, &p) != AUGUR_OK) {
			fprintf(stderr, "latency: %s\n", augur_last_error());
			return 1;
		}
		t[i] = now_us() - t0;
	}
	report("cold", t, n);
	int64_t shape[4] = {1920, 1080, 5, 5};
	augur_choose(h, shape, 4, &c, &p);
	// Cached calls take tens of nanoseconds: time batches of 100.
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		for (int j = 0; j < 100; j++) {
			augur_choose(h, shape, 4, &c, &p);
		}
		t[i] = (now_us() - t0) / 100;
	}
	report("cached (mean of 100 calls)", t, n);
	augur_config cs[5];
	augur_plan ps[5];
	int32_t got;
	for (int i = 0; i < n; i++) {
		int64_t shape[4] = {300 + i, 700 + 16 * (i % 7), 3 + 2 * (i % 3), 3 + 2 * (i % 3)};
		double t0 = now_us();
		if (augur_candidates(h, shape, 4, 5, cs, ps, &got) != AUGUR_OK) {
			fprintf(stderr, "latency: %s\n", augur_last_error());
			return 1;
		}
		t[i] = now_us() - t0;
	}
	report("candidates k=5, new shapes", t, n);
	augur_close(h);
	free(t);
	return 0;
}

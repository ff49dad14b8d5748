// abi_test checks libaugur's C API from C: every error path returns its
// code and a message instead of crashing, and many threads choose at once.
// TestCABI builds and runs it: abi_test BUNDLE WISDOM_PATH VALUES_BUNDLE
// LABELS_BUNDLE, the third a spec kernel whose configuration sets arguments
// (WG, VAR, BROKEN; wg and scratch), the fourth one with a string parameter
// (WG, MODE of 'mul', 'add', 'sub').
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur.h"

static int failures = 0;

#define EXPECT(call, want)                                                                              \
	do {                                                                                            \
		int rc_ = (call);                                                                       \
		if (rc_ != (want)) {                                                                    \
			fprintf(stderr, "FAIL line %d: %s = %d, want %d (%s)\n", __LINE__, #call, rc_, \
				(want), augur_last_error());                                            \
			failures++;                                                                     \
		} else if ((want) != AUGUR_OK && augur_last_error()[0] == 0) {                          \
			fprintf(stderr, "FAIL line %d: %s: no message\n", __LINE__, #call);            \
			failures++;                                                                     \
		}                                                                                       \
	} while (0)

static const char *bundle_path;
static augur_handle shared;

static void *chooser_thread(void *arg) {
	long id = (long)arg;
	for (int i = 0; i < 200; i++) {
		int64_t shape[4] = {256 + 16 * ((id * 7 + i) % 40), 256 + 32 * (i % 5), 3 + 2 * (i % 3), 3 + 2 * (id % 3)};
		augur_config c;
		augur_plan p;
		int rc = augur_choose(shared, shape, 4, &c, &p);
		if (rc != AUGUR_OK || c.n != 8 || p.dims != 2) {
			fprintf(stderr, "FAIL thread %ld: rc %d n %d dims %d: %s\n", id, rc, c.n, p.dims, augur_last_error());
			return (void *)1;
		}
		int64_t bad[3] = {1, 2, 3};
		if (augur_choose(shared, bad, 3, &c, &p) != AUGUR_ERR_SHAPE ||
		    strstr(augur_last_error(), "shape has 3 values") == NULL) {
			fprintf(stderr, "FAIL thread %ld: the thread's own error got lost: %s\n", id, augur_last_error());
			return (void *)1;
		}
	}
	return NULL;
}

int main(int argc, char **argv) {
	if (argc != 5) {
		fprintf(stderr, "usage: abi_test BUNDLE WISDOM_PATH VALUES_BUNDLE LABELS_BUNDLE\n");
		return 2;
	}
	bundle_path = argv[1];
	augur_handle h = 0;
	augur_config c;
	augur_plan p;
	int64_t shape[4] = {1920, 1080, 5, 5};
	int64_t cfg[8] = {8, 8, 1, 1, 0, 1, 0, 0};
	char buf[256];
	int32_t n;

	// Opening.
	EXPECT(augur_open_file(NULL, NULL, &h), AUGUR_ERR_ARG);
	EXPECT(augur_open_file(bundle_path, NULL, NULL), AUGUR_ERR_ARG);
	EXPECT(augur_open(NULL, &h), AUGUR_ERR_ARG);
	EXPECT(augur_open_file("/nonexistent/x.augur", NULL, &h), AUGUR_ERR_IO);
	EXPECT(augur_open_bytes(NULL, 10, NULL, &h), AUGUR_ERR_ARG);
	EXPECT(augur_open_bytes("not a bundle", 12, NULL, &h), AUGUR_ERR_BUNDLE);
	EXPECT(augur_open_bytes("{\"format\":1,", 12, NULL, &h), AUGUR_ERR_BUNDLE);
	// The bundle's only model is a CPU's: not served silently to a GPU.
	EXPECT(augur_open_file(bundle_path, "nvidia-a100-pcie-40gb", &h), AUGUR_ERR_DEVICE);
	if (strstr(augur_last_error(), "open with no device") == NULL) {
		fprintf(stderr, "FAIL line %d: message %s\n", __LINE__, augur_last_error());
		failures++;
	}
	EXPECT(augur_open_platform_json(bundle_path, "{not json", &h), AUGUR_ERR_ARG);
	EXPECT(augur_open_platform_json(bundle_path, "[]", &h), AUGUR_ERR_ARG);

	// A corrupted bundle: the file's bytes with a stretch overwritten.
	FILE *f = fopen(bundle_path, "rb");
	if (f == NULL) {
		perror("abi_test");
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *bytes = malloc(size);
	if (fread(bytes, 1, size, f) != (size_t)size) {
		perror("abi_test");
		return 1;
	}
	fclose(f);
	EXPECT(augur_open_bytes(bytes, size, NULL, &h), AUGUR_OK);
	EXPECT(augur_close(h), AUGUR_OK);
	EXPECT(augur_close(h), AUGUR_ERR_HANDLE);
	memset(bytes + size / 2, 'x', 64);
	EXPECT(augur_open_bytes(bytes, size, NULL, &h), AUGUR_ERR_BUNDLE);
	EXPECT(augur_open_bytes(bytes, size / 3, NULL, &h), AUGUR_ERR_BUNDLE);
	free(bytes);

	// Choosing.
	EXPECT(augur_open_file(bundle_path, NULL, &h), AUGUR_OK);
	EXPECT(augur_choose(0, shape, 4, &c, &p), AUGUR_ERR_HANDLE);
	EXPECT(augur_choose(h + 1000, shape, 4, &c, &p), AUGUR_ERR_HANDLE);
	EXPECT(augur_choose(h, NULL, 4, &c, &p), AUGUR_ERR_ARG);
	EXPECT(augur_choose(h, shape, 4, NULL, &p), AUGUR_ERR_ARG);
	EXPECT(augur_choose(h, shape, 3, &c, &p), AUGUR_ERR_SHAPE);
	EXPECT(augur_choose(h, shape, -1, &c, &p), AUGUR_ERR_SHAPE);
	EXPECT(augur_choose(h, shape, 1 << 30, &c, &p), AUGUR_ERR_SHAPE);
	int64_t even[4] = {1920, 1080, 4, 4};
	EXPECT(augur_choose(h, even, 4, &c, &p), AUGUR_ERR_SHAPE);
	int64_t huge[4] = {1LL << 40, 1080, 5, 5};
	EXPECT(augur_choose(h, huge, 4, &c, &p), AUGUR_ERR_SHAPE);
	EXPECT(augur_choose(h, shape, 4, &c, NULL), AUGUR_OK);
	EXPECT(augur_choose(h, shape, 4, &c, &p), AUGUR_OK);
	if (c.n != 8 || p.dims != 2 || strstr(p.build_options, "-D FW=5") == NULL || c.source[0] == 0) {
		fprintf(stderr, "FAIL: choose wrote n=%d dims=%d options %s source %s\n", c.n, p.dims, p.build_options, c.source);
		failures++;
	}

	// Names.
	EXPECT(augur_shape_names(h, buf, sizeof buf, &n), AUGUR_OK);
	if (strcmp(buf, "width,height,filter_w,filter_h") != 0 || n != 4) {
		fprintf(stderr, "FAIL: shape names %s (%d)\n", buf, n);
		failures++;
	}
	EXPECT(augur_param_names(h, buf, 4, &n), AUGUR_ERR_TRUNCATED);
	EXPECT(augur_param_names(h, NULL, 0, NULL), AUGUR_ERR_ARG);
	EXPECT(augur_param_names(h, NULL, 0, &n), AUGUR_ERR_TRUNCATED);
	if (n != 8) {
		fprintf(stderr, "FAIL: %d parameters, want 8\n", n);
		failures++;
	}

	// Candidates.
	augur_config cs[5];
	augur_plan ps[5];
	EXPECT(augur_candidates(h, shape, 4, 0, cs, ps, &n), AUGUR_ERR_ARG);
	EXPECT(augur_candidates(h, shape, 4, 5, NULL, ps, &n), AUGUR_ERR_ARG);
	EXPECT(augur_candidates(h, shape, 4, 5, cs, ps, NULL), AUGUR_ERR_ARG);
	EXPECT(augur_candidates(h, shape, 2, 5, cs, ps, &n), AUGUR_ERR_SHAPE);
	EXPECT(augur_candidates(h, shape, 4, 5, cs, NULL, &n), AUGUR_OK);
	EXPECT(augur_candidates(h, shape, 4, 5, cs, ps, &n), AUGUR_OK);
	if (n != 5 || memcmp(cs[0].values, c.values, 8 * sizeof(int64_t)) != 0 || memcmp(cs[1].values, cs[0].values, 8 * sizeof(int64_t)) == 0) {
		fprintf(stderr, "FAIL: %d candidates, the first must be the pick and the second differ\n", n);
		failures++;
	}

	// Recording without wisdom, then with.
	EXPECT(augur_record(h, shape, 4, cfg, 8, 1000), AUGUR_ERR_NO_WISDOM);
	EXPECT(augur_close(h), AUGUR_OK);
	augur_open_options opt = {0};
	opt.path = bundle_path;
	opt.wisdom_path = argv[2];
	EXPECT(augur_open(&opt, &h), AUGUR_OK);
	EXPECT(augur_record(h, shape, 4, NULL, 8, 1000), AUGUR_ERR_ARG);
	EXPECT(augur_record(h, shape, 4, cfg, 7, 1000), AUGUR_ERR_CONFIG);
	EXPECT(augur_record(h, shape, 3, cfg, 8, 1000), AUGUR_ERR_SHAPE);
	EXPECT(augur_record(h, even, 4, cfg, 8, 1000), AUGUR_ERR_SHAPE);
	EXPECT(augur_record(h, shape, 4, cfg, 8, -1), AUGUR_ERR_ARG);
	EXPECT(augur_record(h, shape, 4, cfg, 8, NAN), AUGUR_ERR_ARG);
	int64_t outside[8] = {8, 8, 1, 1, 0, 2, 0, 0}; // VW=2 does not divide Xwpt=1
	EXPECT(augur_record(h, shape, 4, outside, 8, 1000), AUGUR_ERR_CONFIG);
	EXPECT(augur_record(h, shape, 4, cfg, 8, 1000), AUGUR_OK);
	EXPECT(augur_choose(h, shape, 4, &c, &p), AUGUR_OK);
	if (strcmp(c.source, "wisdom") != 0 || memcmp(c.values, cfg, sizeof cfg) != 0) {
		fprintf(stderr, "FAIL: after record, source %s\n", c.source);
		failures++;
	}
	EXPECT(augur_close(h), AUGUR_OK);
	EXPECT(augur_record(h, shape, 4, cfg, 8, 1000), AUGUR_ERR_HANDLE);

	// Threads: one handle, 8 threads, each with its own last error.
	EXPECT(augur_open_file(bundle_path, NULL, &shared), AUGUR_OK);
	pthread_t th[8];
	for (long i = 0; i < 8; i++) {
		pthread_create(&th[i], NULL, chooser_thread, (void *)i);
	}
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(th[i], &r);
		if (r != NULL) {
			failures++;
		}
	}
	EXPECT(augur_close(shared), AUGUR_OK);

	// The arguments a configuration sets: none for conv2d, two for the spec.
	char names[64];
	int32_t nn = -1;
	EXPECT(augur_open_file(bundle_path, NULL, &h), AUGUR_OK);
	EXPECT(augur_plan_value_names(h, names, sizeof names, &nn), AUGUR_OK);
	if (nn != 0 || names[0] != 0) {
		fprintf(stderr, "FAIL: conv2d sets %d arguments (%s), want none\n", nn, names);
		failures++;
	}
	double v = -1;
	EXPECT(augur_plan_value(h, shape, 4, cfg, 8, "Xwg", &v), AUGUR_ERR_ARG);
	EXPECT(augur_close(h), AUGUR_OK);
	EXPECT(augur_open_file(argv[3], NULL, &h), AUGUR_OK);
	EXPECT(augur_plan_value_names(h, names, 4, &nn), AUGUR_ERR_TRUNCATED);
	EXPECT(augur_plan_value_names(h, names, sizeof names, &nn), AUGUR_OK);
	if (nn != 2 || strcmp(names, "wg,scratch") != 0) {
		fprintf(stderr, "FAIL: value names %d %s, want 2 wg,scratch\n", nn, names);
		failures++;
	}
	int64_t n3000[1] = {3000}, wg32[3] = {32, 0, 0};
	EXPECT(augur_plan_value(h, n3000, 1, wg32, 3, "scratch", &v), AUGUR_OK);
	if (v != 128) {
		fprintf(stderr, "FAIL: scratch is %g bytes, want 128 (32 floats)\n", v);
		failures++;
	}
	EXPECT(augur_plan_value(h, n3000, 1, wg32, 3, "wg", &v), AUGUR_OK);
	if (v != 32) {
		fprintf(stderr, "FAIL: wg is %g, want 32\n", v);
		failures++;
	}
	EXPECT(augur_plan_value(h, n3000, 1, wg32, 3, "nope", &v), AUGUR_ERR_ARG);
	EXPECT(augur_plan_value(h, n3000, 1, wg32, 3, NULL, &v), AUGUR_ERR_ARG);
	EXPECT(augur_plan_value(h, n3000, 1, wg32, 3, "wg", NULL), AUGUR_ERR_ARG);
	EXPECT(augur_plan_value(h, n3000, 1, NULL, 3, "wg", &v), AUGUR_ERR_ARG);
	EXPECT(augur_plan_value(h, n3000, 1, wg32, 2, "wg", &v), AUGUR_ERR_CONFIG);
	EXPECT(augur_plan_value(h, shape, 4, wg32, 3, "wg", &v), AUGUR_ERR_SHAPE);
	EXPECT(augur_close(h), AUGUR_OK);
	EXPECT(augur_plan_value(h, n3000, 1, wg32, 3, "wg", &v), AUGUR_ERR_HANDLE);

	// What a string parameter's numbers stand for; an integer one has no labels.
	char labels[32];
	int32_t nl = -1, kind = -1;
	EXPECT(augur_open_file(argv[4], NULL, &h), AUGUR_OK);
	EXPECT(augur_param_labels(h, 0, labels, sizeof labels, &nl, &kind), AUGUR_OK);
	if (nl != 0 || kind != AUGUR_PARAM_INT || labels[0] != 0) {
		fprintf(stderr, "FAIL: WG has %d labels of kind %d, want 0 of AUGUR_PARAM_INT\n", nl, kind);
		failures++;
	}
	EXPECT(augur_param_labels(h, 1, labels, sizeof labels, &nl, &kind), AUGUR_OK);
	if (nl != 3 || kind != AUGUR_PARAM_STRING || memcmp(labels, "mul\0add\0sub\0", 12) != 0) {
		fprintf(stderr, "FAIL: MODE has %d labels of kind %d (%s), want mul, add, sub of AUGUR_PARAM_STRING\n", nl, kind, labels);
		failures++;
	}
	EXPECT(augur_param_labels(h, 1, labels, 11, &nl, NULL), AUGUR_ERR_TRUNCATED);
	EXPECT(augur_param_labels(h, 1, labels, 12, NULL, NULL), AUGUR_OK);
	EXPECT(augur_param_labels(h, 2, labels, sizeof labels, &nl, &kind), AUGUR_ERR_ARG);
	EXPECT(augur_param_labels(h, -1, labels, sizeof labels, &nl, &kind), AUGUR_ERR_ARG);
	EXPECT(augur_param_labels(h, 1, NULL, 0, &nl, &kind), AUGUR_ERR_ARG);
	int64_t n4096[1] = {4096};
	EXPECT(augur_choose(h, n4096, 1, &c, NULL), AUGUR_OK);
	if (c.n != 2 || c.values[1] < 0 || c.values[1] > 2) {
		fprintf(stderr, "FAIL: the pick's MODE is %lld, want a number of a label\n", (long long)c.values[1]);
		failures++;
	}
	EXPECT(augur_close(h), AUGUR_OK);
	EXPECT(augur_param_labels(h, 1, labels, sizeof labels, &nl, &kind), AUGUR_ERR_HANDLE);

	if (failures > 0) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}

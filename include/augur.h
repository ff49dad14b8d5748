/*
 * augur.h: libaugur, augur's runtime for C and C++ callers.
 *
 * libaugur loads a model bundle (.augur, written by `augur train`) and picks
 * a kernel configuration for an input shape with no measurement: the same
 * runtime.Chooser that Go libraries import, behind a C ABI. It links no
 * OpenCL and no Arrow.
 *
 *     augur_handle h;
 *     if (augur_open_file("conv2d.augur", "nvidia-h200", &h) != AUGUR_OK) {
 *         fprintf(stderr, "%s\n", augur_last_error());
 *         return 1;
 *     }
 *     int64_t shape[] = {1920, 1080, 5, 5};  // order: augur_shape_names
 *     augur_config cfg;
 *     augur_plan plan;
 *     if (augur_choose(h, shape, 4, &cfg, &plan) != AUGUR_OK) { ... }
 *     // build with plan.build_options, enqueue plan.global / plan.local
 *     augur_close(h);
 *
 * Build: `make lib` writes bin/libaugur.so and bin/libaugur.a; compile with
 * -Iinclude and link with -Lbin -laugur (the static library also needs
 * -lpthread and, on glibc before 2.34, -ldl).
 *
 * Rules of the API:
 *  - Every function returns AUGUR_OK (0) or an AUGUR_ERR_* code, never
 *    crashes on a bad argument (NULL pointers, wrong lengths, a damaged
 *    bundle, a closed handle), and on an error leaves a message for
 *    augur_last_error().
 *  - Every function is safe to call from many threads at once, on one
 *    handle or several.
 *  - The caller owns every buffer and struct; libaugur keeps no pointer to
 *    them after a call returns, and hands out no pointer into its own
 *    memory except the strings of augur_version and augur_last_error.
 *  - Shapes and configurations are arrays of int64_t in the order of
 *    augur_shape_names and augur_param_names.
 *  - A pick is cached per shape: the first call for a shape searches the
 *    model (tens of microseconds to a few milliseconds), later ones cost a
 *    look-up. A chooser remembers 4,096 shapes; a new shape beyond them
 *    replaces one at random.
 */
#ifndef AUGUR_H
#define AUGUR_H

#include "augur_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* augur's version ("0.1.0"), a static string. */
const char *augur_version(void);

/* The AUGUR_ABI this library was built with (augur_types.h). */
int augur_abi(void);

/* The message of the last failed call on this thread (thread-local, like
 * errno): valid until the thread's next failed call; "" when none failed.
 * Calls that succeed leave it as it was. */
const char *augur_last_error(void);

/* Opens a chooser as *opt says (see augur_open_options) and writes its
 * handle to *out. Errors: AUGUR_ERR_ARG (NULL opt or out, both or neither
 * of path and bundle, a bad platform_json or trusted_keys_pem),
 * AUGUR_ERR_IO, AUGUR_ERR_BUNDLE (not a bundle, or damaged),
 * AUGUR_ERR_VERSION, AUGUR_ERR_DEVICE (a device named or described that no
 * model of the bundle serves: libaugur never answers it silently with the
 * reference, nor with the own model of another device, a bundle's only
 * model; open with no device to use that model anyway), AUGUR_ERR_UNSUPPORTED, AUGUR_ERR_UNTRUSTED (with trusted
 * keys: unsigned, signed by none of them, or changed since). Wisdom lines
 * that do not parse, or hold another kernel version or device, are
 * skipped.
 *
 * libaugur holds a Go runtime, which does not survive fork(2): open and
 * call choosers in the process that loaded the library, or in a child
 * started by exec (Python: multiprocessing's "spawn" or "forkserver"); a
 * forked child's calls may hang. Two copies of libaugur cannot be loaded
 * in one process. */
int augur_open(const augur_open_options *opt, augur_handle *out);

/* augur_open of a bundle file for the device named device (NULL: none). */
int augur_open_file(const char *path, const char *device, augur_handle *out);

/* augur_open of a bundle's bytes (copied) for the device named device. */
int augur_open_bytes(const void *buf, size_t len, const char *device, augur_handle *out);

/* augur_open of a bundle file for the device described by platform_json
 * (one device of `augur devices --json`). */
int augur_open_platform_json(const char *path, const char *platform_json, augur_handle *out);

/* Closes the chooser and its wisdom file. Closing a handle twice, or 0,
 * is AUGUR_ERR_HANDLE. Calls on the handle running in other threads
 * finish normally. */
int augur_close(augur_handle h);

/* Writes the names of the shape's values, joined by ',' and NUL-terminated,
 * into buf (size bytes) and their number into *n (n may be NULL). A buf
 * too small is AUGUR_ERR_TRUNCATED; the message says the size needed. */
int augur_shape_names(augur_handle h, char *buf, size_t size, int32_t *n);

/* augur_shape_names for the tuning parameters, in configuration order. */
int augur_param_names(augur_handle h, char *buf, size_t size, int32_t *n);

/* Writes what each value of tuning parameter param (0-based, in
 * augur_param_names order) stands for: *kind (AUGUR_PARAM_INT, _FLOAT or
 * _STRING; kind may be NULL) and, for a kernel spec's string or float
 * parameter, whose values a configuration numbers 0, 1, ... in the spec's
 * order, the text of value 0, value 1, ..., each NUL-terminated, one after
 * another, into buf (size bytes), and their number into *n (n may be
 * NULL). An integer parameter writes "" and 0: its values are the numbers
 * themselves. The build options (augur_plan.build_options) already carry
 * the texts (-DNAME=text). Errors: AUGUR_ERR_ARG (param out of range),
 * AUGUR_ERR_TRUNCATED (buf too small; the message says the size needed). */
int augur_param_labels(augur_handle h, int32_t param, char *buf, size_t size, int32_t *n, int32_t *kind);

/* augur_shape_names for the kernel arguments whose values a configuration
 * sets (a spec's scalar whose FillValue, or local buffer whose Size, uses
 * the tuning parameters), in argument order: those augur_plan_value gives.
 * None ("" and 0) for augur's own kernels and imported ones. */
int augur_plan_value_names(augur_handle h, char *buf, size_t size, int32_t *n);

/* Writes into *value what configuration config[0..nconf) sets the kernel
 * argument name to on the shape: the scalar's value, or the local
 * buffer's size in bytes (set it with clSetKernelArg(k, i, bytes, NULL)).
 * Errors: AUGUR_ERR_ARG (NULL config, name or value; an argument the
 * configuration does not set), AUGUR_ERR_SHAPE, AUGUR_ERR_CONFIG. */
int augur_plan_value(augur_handle h, const int64_t *shape, int32_t n, const int64_t *config, int32_t nconf,
		     const char *name, double *value);

/* Chooses the configuration for the shape shape[0..n) into *out, and its
 * launch plan into *out_plan (NULL: not wanted). Errors: AUGUR_ERR_ARG (NULL
 * shape or out), AUGUR_ERR_SHAPE (n is not the number of shape values, or
 * the kernel refuses a value), AUGUR_ERR_TRUNCATED (build options longer
 * than AUGUR_BUILD_OPTIONS_MAX - 1). */
int augur_choose(augur_handle h, const int64_t *shape, int32_t n, augur_config *out, augur_plan *out_plan);

/* Writes the model's k best distinct configurations for the shape that are
 * known to run on the device, the pick of augur_choose first, into
 * out[0..*count) (and their plans into out_plans, unless NULL); *count may
 * be less than k. out (and out_plans) must hold k structs. */
int augur_candidates(augur_handle h, const int64_t *shape, int32_t n, int32_t k,
		     augur_config *out, augur_plan *out_plans, int32_t *count);

/* Records a measurement, time_ns nanoseconds, of configuration
 * config[0..nconf) on the shape, in the chooser's wisdom file: from then
 * on augur_choose answers that shape with its fastest recorded
 * configuration (source "wisdom"). Another chooser on the same file, in
 * this process or another, sees the record at its next augur_record or
 * augur_refresh. A record whose configuration is outside the space (one
 * written by hand, say) is passed over. Errors: AUGUR_ERR_NO_WISDOM
 * (opened without wisdom_path), AUGUR_ERR_SHAPE, AUGUR_ERR_CONFIG (wrong
 * length or outside the space), AUGUR_ERR_ARG (time not positive and
 * finite), AUGUR_ERR_IO. */
int augur_record(augur_handle h, const int64_t *shape, int32_t n,
		 const int64_t *config, int32_t nconf, double time_ns);

/* Reads the records that other choosers and processes appended to the
 * chooser's wisdom file since it last read it, so that augur_choose
 * answers from them. Errors: AUGUR_ERR_NO_WISDOM, AUGUR_ERR_IO. */
int augur_refresh(augur_handle h);

#ifdef __cplusplus
}
#endif

#endif /* AUGUR_H */

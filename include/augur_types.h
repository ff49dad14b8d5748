/*
 * augur_types.h: the constants and caller-owned structs of libaugur's C API.
 *
 * Include augur.h, which includes this file. It is separate so that the Go
 * side of libaugur (cgo) sees the same types without the function
 * declarations, which cgo generates itself.
 */
#ifndef AUGUR_TYPES_H
#define AUGUR_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of the structs below and the functions' signatures: a new
 * number whenever one changes. A program built with this header checks
 * augur_abi() == AUGUR_ABI against the library it loads (the Python
 * package does), so that an older or newer libaugur is refused rather
 * than writing past the caller's structs. */
#define AUGUR_ABI 1

/* The most parameters a kernel may have for libaugur; a bundle with more is
 * refused at open (AUGUR_ERR_UNSUPPORTED). */
#define AUGUR_MAX_PARAMS 64
/* The most values a shape may have (features.MaxTaskLen). */
#define AUGUR_MAX_SHAPE 8
/* Sizes, with the terminating NUL, of the strings in the structs below. */
#define AUGUR_SOURCE_MAX 64
#define AUGUR_BUILD_OPTIONS_MAX 1024
/* The longest message augur_last_error returns, with its NUL; a longer one
 * is cut. */
#define AUGUR_ERROR_MAX 1024

/* Return codes: every function but augur_version and augur_last_error
 * returns one; on anything but AUGUR_OK, augur_last_error() says why. */
#define AUGUR_OK 0
#define AUGUR_ERR_ARG 1          /* a NULL pointer, a bad length or count */
#define AUGUR_ERR_HANDLE 2       /* no open chooser has this handle */
#define AUGUR_ERR_IO 3           /* a file could not be read or written */
#define AUGUR_ERR_BUNDLE 4       /* not a bundle, or a damaged one */
#define AUGUR_ERR_VERSION 5      /* the bundle is of another kernel version */
#define AUGUR_ERR_DEVICE 6       /* the bundle has no model for the device */
#define AUGUR_ERR_SHAPE 7        /* the kernel does not take this shape */
#define AUGUR_ERR_CONFIG 8       /* a configuration outside the tuning space */
#define AUGUR_ERR_NO_WISDOM 9    /* augur_record on a chooser opened without wisdom */
#define AUGUR_ERR_TRUNCATED 10   /* a caller's buffer is too small */
#define AUGUR_ERR_UNSUPPORTED 11 /* a bundle this build of libaugur cannot serve */
#define AUGUR_ERR_UNTRUSTED 12   /* with trusted keys: the bundle is unsigned, or signed by none of them, or changed since */
#define AUGUR_ERR_INTERNAL 99    /* a bug in libaugur, caught; the message says where */

/* What a tuning parameter's values are (augur_param_labels). */
#define AUGUR_PARAM_INT 0    /* the numbers themselves */
#define AUGUR_PARAM_FLOAT 1  /* numbered 0, 1, ...: each number's label is a float, as text */
#define AUGUR_PARAM_STRING 2 /* numbered 0, 1, ...: each number's label is the text the kernel gets */

/* A chooser: an integer, never a pointer. 0 is never a valid handle. */
typedef int64_t augur_handle;

/* A configuration chosen for a shape, written by augur_choose and
 * augur_candidates into the caller's struct. */
typedef struct augur_config {
	/* n is the number of parameters; values[0..n) are their values, in the
	 * order augur_param_names gives. */
	int32_t n;
	int64_t values[AUGUR_MAX_PARAMS];
	/* What chose: "model:<slug>" (the device's own model), "fleet",
	 * "table" (measured on this very shape in the bundle), "wisdom"
	 * (measured on this shape and recorded with augur_record),
	 * "copy:<slug>" (another device's best at the nearest shape), "near"
	 * (a model trained on one shape, asked another: that shape's best),
	 * "fixed" (one configuration the model serves at every new shape, as
	 * it picked better than the model on held-out shapes) or "reference"
	 * (the kernel's reference configuration). A source longer than
	 * AUGUR_SOURCE_MAX - 1 bytes (a long device slug) is cut to fit and
	 * ends in "...". */
	char source[AUGUR_SOURCE_MAX];
	/* The model's predicted ln(t_reference / t) at the shape: its
	 * prediction for the pick less its prediction for the reference
	 * there, so 0 for the reference. */
	double log_speedup;
	/* How far the shape lies beyond the training shapes, in octaves of the
	 * task feature farthest out; 0 inside. Beyond about 1 the model
	 * extrapolates. */
	double outside_octaves;
	/* 1 when the model's prediction for the pick lay outside the
	 * log-speedups of its training data and was clamped to them (the model
	 * extrapolates, or is damaged); 0 otherwise, and always for a model
	 * that records no training range. */
	int32_t clamped;
} augur_config;

/* How to build and launch a configuration on a shape. All zero (dims 0,
 * build_options "") for a kernel augur has no launch definitions of (an
 * imported one): the caller derives its launch from the parameters. */
typedef struct augur_plan {
	int32_t dims;            /* 1, 2 or 3 */
	int64_t global[3];       /* NDRange global size, a multiple of local */
	int64_t local[3];        /* work-group size */
	int64_t local_mem_bytes; /* local memory the configuration allocates statically */
	/* Options for clBuildProgram ("-D NAME=value ..."): programs with
	 * equal options are the same program. */
	char build_options[AUGUR_BUILD_OPTIONS_MAX];
} augur_plan;

/* What augur_open opens; a zero field takes its default. Set exactly one
 * of path and bundle. */
typedef struct augur_open_options {
	/* The bundle file (.augur) to read; or NULL and bundle/bundle_len. */
	const char *path;
	/* The bundle's bytes (for example linked into the program); copied. */
	const void *bundle;
	size_t bundle_len;
	/* The device the picks are for, by the slug or name its data was
	 * collected under ("nvidia-h200", "pthread-skylake-avx512-AMD EPYC").
	 * A device the bundle has no model of is looked up in the device table
	 * augur ships ("NVIDIA A100-PCIE-40GB"), whose features let the fleet
	 * model serve it. NULL or "": no name (the bundle's only model, or its
	 * fleet model). */
	const char *device;
	/* The device's features as JSON, one device as `augur devices --json`
	 * prints it (an object, or an array of one); lets a device the bundle
	 * has no model of be served by the fleet model. NULL: unknown. */
	const char *platform_json;
	/* A wisdom file (JSON lines of measured shape, configuration and time;
	 * created when missing) that augur_choose consults before the model
	 * and augur_record appends to. NULL: no wisdom. */
	const char *wisdom_path;
	/* Trusted public keys, one or more PEM "PUBLIC KEY" blocks (the .pub
	 * files `augur keygen` writes, concatenated). When set, the bundle must
	 * carry a valid signature by one of them (AUGUR_ERR_UNTRUSTED
	 * otherwise). NULL: no check; signed and unsigned bundles load alike. */
	const char *trusted_keys_pem;
	/* The bundle's signature file (`augur sign` writes BUNDLE.sig); NULL
	 * means path + ".sig". Read only with trusted_keys_pem. */
	const char *signature_path;
} augur_open_options;

#ifdef __cplusplus
}
#endif

#endif /* AUGUR_TYPES_H */

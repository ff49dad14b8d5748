// The thread-local message behind augur_last_error. It lives in C because
// a C thread keeps its identity across calls while Go's goroutines do not:
// Go writes it through augur_set_error_ during the call that failed, on
// the caller's own thread (cgo runs an exported function on the thread
// that called it).
#include <string.h>
#include "augur_types.h"

static _Thread_local char augur_error_buf[AUGUR_ERROR_MAX];

__attribute__((visibility("hidden"))) void augur_set_error_(const char *msg, size_t n) {
	if (n >= AUGUR_ERROR_MAX) {
		n = AUGUR_ERROR_MAX - 1;
	}
	memcpy(augur_error_buf, msg, n);
	augur_error_buf[n] = 0;
}

const char *augur_last_error(void) { return augur_error_buf; }

package record

import "errors"

// ErrFormat is returned, wrapped with the details, for a file that is not a
// dataset file of this package: a missing column or metadata key, or a
// column of the wrong type.
var ErrFormat = errors.New("record: malformed dataset file")

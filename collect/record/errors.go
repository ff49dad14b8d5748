package record

import "errors"

// ErrFormat is returned, wrapped with the details, for a file that is not a
// dataset file of this package: a missing column or metadata key, or a
// column of the wrong type.
var ErrFormat = errors.New("record: malformed dataset file")

// ErrCorrupt is returned, wrapped with the file name and the details, for a
// dataset file whose bytes do not decode (the Arrow reader failed or
// panicked) or whose rows fail ErrInvalidRow's checks.
var ErrCorrupt = errors.New("corrupted dataset file")

// ErrInvalidRow is returned, wrapped with the details, for a row no
// measurement can produce: an unknown status, a time that is not a positive
// number on an ok row, a log-speedup that disagrees with the times, a
// configuration value outside its parameter's values. Writer.Write refuses
// such rows, and ReadFile reports a file holding one as ErrCorrupt.
var ErrInvalidRow = errors.New("invalid row")

// ErrLocked is returned, as a *LockedError naming the holder, by LockDir for
// a directory (or shard) another live run writes.
var ErrLocked = errors.New("record: directory has another writer")

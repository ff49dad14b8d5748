// Package record reads and writes augur's dataset files: Apache Arrow IPC
// files (the random-access "file" format) with one row per (task, config)
// measured or rejected on one platform.
//
// The schema has a column task.<name> (int64) for each shape feature, a
// column param.<name> (int64) for each tuning parameter, then status
// (string), time_ns, time_min_ns, time_cv (float64), repeats (int64),
// ref_time_ns, log_speedup (float64, null unless the row is ok) and
// compile_ms (float64), error (string), and times_ns (list<int64>, null
// where not kept): an ok row's timed runs in nanoseconds, in the order they
// ran, whose median, minimum, coefficient of variation and count are
// time_ns, time_min_ns, time_cv and repeats. Files written before times_ns
// existed lack the column and read as before; readers find columns by name,
// so those versions read the newer files too, without the runs. The
// reader leaves the runs unread unless ReadOptions.Runs asks for them:
// training needs the summary only. The schema metadata describes the
// run: kernel, kernel_version, platform (JSON), augur_version,
// driver_version, created (RFC 3339), task_names, params, constraints and
// reference (JSON), and source. Any Arrow implementation (pyarrow, polars,
// DuckDB) reads these files.
//
// A Writer appends rows to path+".partial", an Arrow IPC stream that needs
// no footer, flushing them as often as WriterOptions.FlushRows says; Close
// rewrites it as a file with large batches and moves it to path. A killed
// process thus never leaves a file that looks complete, and Recover turns
// what it left into one, losing at most the rows not yet flushed. ReadDir
// reads only *.arrow files and so skips partial ones.
//
// Readers trust nothing in a file: bytes that do not decode, and rows no
// measurement can produce (ErrInvalidRow), are reported as ErrCorrupt with
// the file's name, never as a panic or an absurd value.
//
// A finished file proves itself: its schema metadata, kept in the file's
// footer, holds meta_xxh3, the XXH3-64 of the other metadata values, and
// batch_xxh3, a JSON list of the XXH3-64 of each record batch's rows as
// read back. Readers check both and report a mismatch as ErrCorrupt naming
// the file and the batch. Files written before the checksums existed have
// neither key and read as before, unverified (File.Verified); a file with
// one key and not the other is corrupt. A file with the times_ns column
// also holds runs_xxh3, the XXH3-64 of each batch's runs, which readers
// check when they read the runs. The partial stream of a running
// Writer carries meta_xxh3 only; the rows' checksums are computed when it
// is finished. Verify checks a file through (also the space's constraints
// and the kernel's task space) and counts its bad and duplicate rows, for
// `augur verify`.
package record

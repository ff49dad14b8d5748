package train

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/augur-tuning/augur/features"
)

// WriteCSVFile writes d with WriteCSV to a new file at path. It refuses
// to overwrite a file (O_EXCL: even one created since the caller last
// looked), and a failed write removes the partial file.
func (d *Data) WriteCSVFile(path string) error {
	return createFile(path, d.WriteCSV)
}

// WriteCSVFile writes cd with WriteCSV to a new file at path, as
// Data.WriteCSVFile does.
func (cd *ClassData) WriteCSVFile(path string, by []string) error {
	return createFile(path, func(w io.Writer) error { return cd.WriteCSV(w, by) })
}

// createFile writes a new file at path with write, refusing to overwrite
// one and removing what it wrote when write fails.
func createFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(err, os.Remove(path))
	}
	return nil
}

// csvColumns are the columns WriteCSV writes after the feature columns.
var csvColumns = []string{"log_speedup", "time_ns", "ref_time_ns", "platform", "shape", "config"}

// WriteCSV writes d as CSV with a header line, one line per row, so that
// tools outside Go (pandas, scikit-learn, XGBoost) can fit and score
// models on exactly the rows augur trains on. The columns are the feature
// vector (d.Features, in order), then:
//
//   - log_speedup: the target Y, ln(t_ref/t), or the stand-in target of an
//     invalid row;
//   - time_ns, ref_time_ns: the row's median time and the reference's, in
//     nanoseconds, empty for an invalid row;
//   - platform: the slug of the row's device;
//   - shape: the task as "name=value,...", the same on every device, so
//     that grouping by (shape, config) makes the folds CrossValidate makes,
//     and (platform, shape) is the shape its Spearman mean is taken over;
//   - config: the configuration as "name=value,...".
//
// Numbers are written in the shortest form that reads back to the same
// float64.
func (d *Data) WriteCSV(w io.Writer) error {
	nf := len(d.Features)
	if n := d.samples.len(); len(d.Y) != n || d.codedRows() != n || len(d.cols) != nf {
		return fmt.Errorf("train: write csv: %d samples, %d targets and %d feature vectors of %d features, want %d",
			n, len(d.Y), d.codedRows(), len(d.cols), nf)
	}
	cw := csv.NewWriter(w)
	rec := append(append(make([]string, 0, len(d.Features)+len(csvColumns)), d.Features...), csvColumns...)
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("train: write csv: %w", err)
	}
	paramNames := make([]string, len(d.Params))
	for i, p := range d.Params {
		paramNames[i] = p.Name
	}
	slugs := make([]string, len(d.Platforms))
	for i, p := range d.Platforms {
		slugs[i] = p.Slug()
	}
	var x []float64
	for i, s := range d.Samples() {
		rec = rec[:0]
		x = d.AppendRow(x[:0], i)
		for _, v := range x {
			rec = append(rec, ftoa(v))
		}
		rec = append(rec, ftoa(d.Y[i]))
		if s.Measured() {
			rec = append(rec, ftoa(s.TimeNs), ftoa(s.RefTimeNs))
		} else {
			rec = append(rec, "", "")
		}
		if s.Platform < 0 || s.Platform >= len(slugs) {
			return fmt.Errorf("train: write csv: row %d has platform %d, data has %d", i, s.Platform, len(slugs))
		}
		rec = append(rec, slugs[s.Platform],
			features.FormatTask(d.TaskNames, s.Task),
			features.FormatTask(paramNames, features.Task(s.Config)))
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("train: write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("train: write csv: %w", err)
	}
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/augur-tuning/augur/datasets"
)

func runKernels(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var asJSON bool
	fs := flags("kernels", "[--json]", stderr)
	fs.BoolVar(&asJSON, "json", false, "print a JSON array")
	if err := parse(fs, args); err != nil {
		return err
	}
	type row struct {
		Name      string   `json:"name"`
		Doc       string   `json:"doc"`
		Version   string   `json:"version"`
		Params    int      `json:"params"`
		RawSize   int      `json:"raw_size"`
		ValidSize int      `json:"valid_size"`
		Tasks     []string `json:"task_features"`
	}
	var rows []row
	for _, k := range datasets.Kernels() {
		rows = append(rows, row{k.Name, k.Doc, k.Version(), len(k.Space.Params), k.Space.RawSize(), k.Space.Len(), k.TaskNames})
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KERNEL\tPARAMS\tRAW\tVALID\tSHAPE FEATURES\tDESCRIPTION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%v\t%s\n", r.Name, r.Params, r.RawSize, r.ValidSize, r.Tasks, r.Doc)
	}
	return tw.Flush()
}

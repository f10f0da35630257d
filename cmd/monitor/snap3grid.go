package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// printSNAP3Grid prints SNAP's 6×6 grid of 3-edge motif counts labelled as
// in SNAP's figure (Paranjape, Benson and Leskovec, WSDM 2017, Fig. 2):
// row i, column j is motif M(i,j), named snap-i-j by --motif. The table
// groups thousands; CSV has raw integers, a header row and a row label.
// How the counts are computed is runMine's business, not this function's.
func printSNAP3Grid(w io.Writer, grid [][]int64, delta string, asCSV bool) error {
	if asCSV {
		cw := csv.NewWriter(w)
		header := []string{"M(i,j)"}
		for j := range 6 {
			header = append(header, fmt.Sprintf("j=%d", j+1))
		}
		cw.Write(header)
		for i, row := range grid {
			rec := []string{fmt.Sprintf("i=%d", i+1)}
			for _, c := range row {
				rec = append(rec, strconv.FormatInt(c, 10))
			}
			cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	}
	var total int64
	for _, row := range grid {
		for _, c := range row {
			total += c
		}
	}
	fmt.Fprintf(w, "SNAP 3-edge temporal motifs, delta %s: row i, column j = motif M(i,j) (--motif snap-i-j)\n", delta)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for j := range 6 {
		fmt.Fprintf(tw, "j=%d\t", j+1)
	}
	fmt.Fprintln(tw)
	for i, row := range grid {
		fmt.Fprintf(tw, "i=%d\t", i+1)
		for _, c := range row {
			fmt.Fprintf(tw, "%s\t", grouped(c))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "TOTAL %s\n", grouped(total))
	return nil
}

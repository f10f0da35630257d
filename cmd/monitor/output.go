package main

import "github.com/motifwatch/motifwatch/internal/progress"

// Output helpers shared by mine and gpm.

// formats are the values of --format.
var formats = []string{"table", "json", "csv"}

// grouped writes n with thousands separators: 3979317 → "3,979,317".
func grouped[T int64 | uint64 | int](n T) string { return progress.Grouped(n) }

// Package progress holds what the batch runs (packages mine and gpmrun)
// report while they work and when they end: a progress line every
// interval (Every, Line) with the share done and an estimate of the time
// left, counts with thousands separators (Grouped), and the process's
// peak resident set (PeakRSS). It imports only the standard library.
package progress

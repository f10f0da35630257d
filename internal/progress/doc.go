// Package progress holds what the batch runs (packages mine and gpmrun)
// report while they work and when they end: a progress line every
// interval (Every, Meter) with the share done and an honest estimate of
// the time left ("ETA unknown" when the share does not measure the work),
// a warning when a count explodes, counts with thousands separators
// (Grouped), and the process's peak resident set (PeakRSS). It imports
// only the standard library.
package progress

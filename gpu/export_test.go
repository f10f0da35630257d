package gpu

// Tuning is the kernel's thresholds and switches (tuning) for the external
// tests, which drive every path of the kernel against the oracle; they are
// no option of the engine.
type Tuning = tuning

// WithTuning returns o with the kernel's thresholds t.
func (o Options) WithTuning(t Tuning) Options {
	o.tune = t
	return o
}

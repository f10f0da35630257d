package gpu

import (
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// CompileBuiltin is compileBuiltin for the external tests (gpu_test).
var CompileBuiltin = compileBuiltin

// compileBuiltin compiles the built-in motif name at delta ticks against w.
func compileBuiltin(t testing.TB, w *window.Window, name string, delta int64) *motif.Plan {
	t.Helper()
	q, err := motif.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	q.Delta = motif.TicksSpan(delta)
	p, err := motif.Compile(q, w)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

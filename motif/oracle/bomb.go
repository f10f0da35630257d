package oracle

import (
	"fmt"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Bomb is a mining bomb, for the engines' work-budget tests: n
// edges x_i -> hub, then n edges hub -> y_i, then m edges y_j -> z_j, one
// second apart, every edge with amount 1. BombQuery's path A -> B -> C ->
// D rooted at each y -> z edge tries every x -> hub edge before it (about
// m·n candidates, quadratic in the batch) and matches none: its predicate
// fails on every first edge, so the last step cannot be tallied either.
func Bomb(n, m int) (*window.Window, *motif.Plan, error) {
	w, err := window.New(window.Schema{TimeUnit: time.Second, EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}}})
	if err != nil {
		return nil, nil, err
	}
	hub, _ := w.IDs().Intern("hub")
	var tm int64
	add := func(src, dst uint32) error {
		tm++
		_, err := w.Append(window.Edge{Src: src, Dst: dst, T: tm, Attrs: []float64{1}})
		return err
	}
	for i := range n {
		x, _ := w.IDs().Intern(fmt.Sprint("x", i))
		if err := add(x, hub); err != nil {
			return nil, nil, err
		}
	}
	for i := range n {
		y, _ := w.IDs().Intern(fmt.Sprint("y", i))
		if err := add(hub, y); err != nil {
			return nil, nil, err
		}
	}
	for i := range m {
		y, _ := w.IDs().Lookup(fmt.Sprint("y", i*n/m))
		z, _ := w.IDs().Intern(fmt.Sprint("z", i))
		if err := add(y, z); err != nil {
			return nil, nil, err
		}
	}
	qs, err := motif.ParseQueries([]byte("queries: [{name: bomb, delta: 1000000, edges: [A -> B, B -> C, C -> D], where: \"e1.amount > 1000\"}]\n"), "bomb.yaml")
	if err != nil {
		return nil, nil, err
	}
	p, err := motif.Compile(qs[0], w)
	if err != nil {
		return nil, nil, err
	}
	return w, p, nil
}

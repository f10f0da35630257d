// Package oracle is the obviously-correct reference every gpm engine is
// tested against: it tries every k-vertex subset of a small graph, keeps
// the connected ones (motifs) or the complete ones (cliques), and labels
// each by trying all k! orderings of its vertices. Exponential, and meant
// to be: nothing in it is clever enough to share a bug with the engines.
// It imports nothing of gpm.
package oracle

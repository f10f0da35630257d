// Package cpu is the exact parallel CPU miner of motif plans: Engine
// implements motif.Engine by chronological edge-driven backtracking
// (Mackey et al.; Everest's Algorithm 1) anchored on the last motif edge,
// parallel over root edges, with idle workers fed subtrees split off busy
// ones (sched.go) and the work budget and deadline of a Request counted
// as it goes.
//
// It reads a plan through motif's exported Plan, Step, PlanAnti and
// PlanPred.Operands, the same view the GPU engine has. Its differential
// tests hold it to motif/oracle on random windows and queries
// (engine_diff_test.go prints the command that reruns a failing case).
//
// Package cpu is an algorithm core: it imports motif and window only,
// does no I/O and registers no metrics; the engine package selects it and
// motif/count3 wraps it.
package cpu

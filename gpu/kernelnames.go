package gpu

import (
	"fmt"
	"slices"
)

// kernelNames are the temporal module's kernels, loaded by name when a
// device opens (TestKernelNamesMatchPTX keeps the list and the PTX in
// step: a kernel missing here would fail at its first launch).
var kernelNames = []string{"mine4", "mine5", "mine6", "mine8", "mine6p", "mineq4", "mineq5", "mineq6", "mineq8", "mineq6p",
	"mine6x", "mine6px",
	"scanLocal", "scanAdd", "radixHist", "radixScatter", "gatherKeys",
	"liveStart", "countNew", "addSizes", "scatterOld", "scatterNew", "moveU32", "moveI64",
	"pairKeys", "pairOwners", "pairGather", "rankOwn", "rankCross"}

// mineKernel names the mining kernel build for a launch at occupancy occ
// (4, 5, 6 or 8 blocks per multiprocessor) of one query (batch false: the
// mine* builds) or several (mineq*). prune: a plan of the launch has the
// closing-edge pruning laid out (encodedPlan.pruned); then the build with
// it (…p: F_PRUNE | F_COMPACT in kernels/temporal.cu), where the module
// has one at that occupancy (the default, 6, only), else the plain build,
// which ignores the pruning's slots (the same counts, unpruned). The
// plain builds carry neither feature's code: the one build that had them
// cost every query (BENCHMARKS.md, "Kernels per feature").
func mineKernel(occ int, batch, prune bool) string {
	q := ""
	if batch {
		q = "q"
	}
	name := fmt.Sprintf("mine%s%d", q, occ)
	if prune && slices.Contains(kernelNames, name+"p") {
		return name + "p"
	}
	return name
}

// expand2Occupancy is the blocks per multiprocessor of the expand2 builds
// (6: at 5 and 4 they were 4% and 7% slower on tg10m, BENCHMARKS.md).
const expand2Occupancy = 6

// mineKernelX names the build with expand2 (F_EXP2: mine6x, with the
// pruning mine6px) for a one-query launch whose plan has it switched on
// (encodedPlan.expanded2).
func mineKernelX(prune bool) string {
	if prune {
		return "mine6px"
	}
	return "mine6x"
}

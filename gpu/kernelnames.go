package gpu

// kernelNames are the temporal module's kernels, loaded by name when a
// device opens (TestKernelNamesMatchPTX keeps the list and the PTX in
// step: a kernel missing here would fail at its first launch). The mining
// builds are all at one occupancy (miningOccupancy, the 6 in their names).
var kernelNames = []string{"mine6", "mine6p", "mineq6", "mineq6p", "mine6x", "mine6px", "mine6a", "mine6ax", "mine6s",
	"mine6c", "mine6cx", "mineq6c",
	"scanLocal", "scanAdd", "radixHist", "radixScatter", "gatherKeys",
	"liveStart", "countNew", "addSizes", "scatterOld", "scatterNew", "moveU32", "moveI64",
	"pairKeys", "pairOwners", "pairGather", "rankOwn", "rankCross"}

// mineKernel names the mining kernel build for a launch of one query
// (batch false: the mine6 builds) or several (mineq6). prune: a plan of
// the launch has the closing-edge pruning laid out (encodedPlan.pruned);
// then the build with it (…p: F_PRUNE | F_COMPACT in
// kernels/temporal.cu). The plain builds carry neither feature's code:
// the one build that had them cost every query (BENCHMARKS.md, "Kernels
// per feature").
func mineKernel(batch, prune bool) string {
	name := "mine6"
	if batch {
		name = "mineq6"
	}
	if prune {
		return name + "p"
	}
	return name
}

// mineKernelX names the build with expand2 (F_EXP2: mine6x, with the
// pruning mine6px) for a one-query launch whose plan has it switched on
// (encodedPlan.expanded2).
func mineKernelX(prune bool) string {
	if prune {
		return "mine6px"
	}
	return "mine6x"
}

// anchorKernel names the anchor build (F_ANCHOR: mine6a, with expand2
// mine6ax) that a one-query launch of an anchored plan (encodedPlan.anchor:
// never pruned) runs in place of kernel, the build it would run otherwise
// (mine6 or mine6x).
func anchorKernel(kernel string) string {
	switch kernel {
	case "mine6":
		return "mine6a"
	case "mine6x":
		return "mine6ax"
	}
	return kernel
}

// prescanKernel names the prescan's build (F_PRESCAN: mine6s) that a
// one-query launch of a plan with a closing step the walk takes
// depth-first (encodedPlan.prescan) runs in place of the plain build;
// every other build (kernel) is kept: the pruning, expand2 and anchor
// builds carry no prescan.
func prescanKernel(kernel string) string {
	if kernel == "mine6" {
		return "mine6s"
	}
	return kernel
}

// checkedKernel names the build with the predicates, anti-edges and match
// output (F_CHECKS: mine6c, with expand2 mine6cx, for batches mineq6c)
// that a launch needs when one of its plans has a predicate or an
// anti-edge, or when it enumerates: the other builds have none of their
// code. The checked builds all carry the pruning; x: expand2 too.
func checkedKernel(batch, x bool) string {
	switch {
	case batch:
		return "mineq6c"
	case x:
		return "mine6cx"
	}
	return "mine6c"
}

// launchKernel names the build that one launch of encs runs (enumerate:
// it writes its matches out): a checked build where a plan has checks or
// the launch enumerates (checkedKernel); else the batch builds for
// several queries, with the pruning if any plan has it laid out
// (mineKernel); for one query, expand2's where its plan has it on and the
// launch is heavy enough (heavy: at least gpu's expand2Roots roots), then
// the anchor build where its plan is anchored, else the prescan's where
// its plan has a step it acts on.
func launchKernel(encs []*encodedPlan, heavy, enumerate bool) string {
	prune, checked := false, enumerate
	for _, enc := range encs {
		prune = prune || enc.pruned()
		checked = checked || enc.checked()
	}
	if checked {
		return checkedKernel(len(encs) > 1, len(encs) == 1 && encs[0].expanded2() && heavy)
	}
	kernel := mineKernel(len(encs) > 1, prune)
	if len(encs) != 1 {
		return kernel
	}
	e := encs[0]
	if e.expanded2() && heavy {
		// expand2's builds (the plan's P_EXPAND2 slot is read by them
		// alone).
		kernel = mineKernelX(prune)
	}
	if e.anchored() {
		// The anchor builds (S_PREVNODES is read by them alone).
		return anchorKernel(kernel)
	}
	if e.prescanned() {
		// The prescan's build (P_PRESCAN is read by it alone).
		return prescanKernel(kernel)
	}
	return kernel
}

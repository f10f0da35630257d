package gpu

// kernelNames are the temporal module's kernels, loaded by name when a
// device opens (TestKernelNamesMatchPTX keeps the list and the PTX in
// step: a kernel missing here would fail at its first launch).
var kernelNames = []string{"mine4", "mine5", "mine6", "mine8", "mineq4", "mineq5", "mineq6", "mineq8", "scanLocal", "scanAdd", "radixHist", "radixScatter", "gatherKeys",
	"liveStart", "countNew", "addSizes", "scatterOld", "scatterNew", "moveU32", "moveI64",
	"pairKeys", "pairOwners", "pairGather", "rankOwn", "rankCross"}

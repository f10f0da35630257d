package gpu

// miningOccupancy is the mining kernel's resident blocks of 128 threads per
// multiprocessor (80 registers), its one build: the fastest measured
// (BENCHMARKS.md); other occupancies are not built: each was a full
// compile for the driver at a cold start, and none was ever the default.
const miningOccupancy = 6

// Defaults of the kernel's thresholds (tuning): the fastest of the sweeps
// in BENCHMARKS.md.
const (
	defaultExpandRun = 512
	// defaultPreScan: see tuning.PreScan.
	defaultPreScan = 16
	// defaultRankPick: see tuning.RankPick.
	defaultRankPick  = 32
	defaultSplitTail = 2048
	defaultSplitRun  = 256
	defaultRootGuide = 4
	defaultRootClaim = 128
	// defaultChunkRoots: see tuning.ChunkRoots.
	defaultChunkRoots = 1 << 20
	defaultExpand2Run = 512
	// defaultExpand2Roots: see tuning.Expand2Roots.
	defaultExpand2Roots = 1 << 20
	// defaultExpand2Fanout: see tuning.Expand2Fanout.
	defaultExpand2Fanout = 2
)

// Options configure the GPU engine. The daemon sets them from the config's
// engine section (engine.devices, engine.gpu.*: docs/CONFIG.md), monitor
// mine and monitor bench from their --devices and --gpu-* flags; the
// library reads no environment. The kernel's thresholds are not options:
// they are the measured rules of tuning, which only tests change.
type Options struct {
	// Devices lists the CUDA device ordinals to use; an ordinal may repeat
	// to run several logical partitions on one GPU (each its own context),
	// which is how the multi-GPU paths are tested on one device. Empty:
	// every device found.
	Devices []int
	// OutRecords is the enumerate-mode output buffer per device, in
	// matches; a full buffer is drained to the sink and the search
	// resumes where it stopped. 0: 1<<20.
	OutRecords int
	// QueueTasks is the device work queue's capacity (subtrees handed
	// between warps). 0: 1<<16.
	QueueTasks int
	// Chunks is how many root chunks a mining call is cut into per device,
	// pulled by the devices in turn so a slow chunk cannot stall the rest.
	// 0: 4 with several devices, 1 with one (each chunk is a launch whose
	// slowest warp the next one waits for; one device balances its warps
	// inside a launch). engine.gpu.chunks, --gpu-chunks.
	Chunks int
	// PartitionEdges, if positive, mines in time partitions of at most this
	// many root edges: each device holds only a partition's edges and the
	// delta of history before it (Everest's major and minor partitions),
	// taking partitions in time order. Without it, partitions are used only
	// when the window would not fit a device (see MemoryFraction).
	// engine.gpu.partition_edges, --gpu-partition-edges.
	PartitionEdges int64
	// MemoryFraction is the share of a device's memory the window mirror
	// may take before mining switches to time partitions. 0: 0.3 (the
	// adjacency is rebuilt beside the old one, and scratch needs room).
	// engine.gpu.memory_fraction, --gpu-memory-fraction.
	MemoryFraction float64
	// Count3Device counts motif/count3's shapes (SNAP's 36, the
	// four-node stars, and the Small family where it is counted) over the
	// device's window mirror (Counter.CountWindow: the centre and triangle
	// passes on the device; the four-node paths stay on the host) instead
	// of on the host's cores: 8× faster than 16 host cores on a 10M-edge
	// window (BENCHMARKS.md), at several hundred bytes of device memory
	// per window edge, which the pool keeps for the next count; a device
	// without room leaves the counting to the host. Off by default: that
	// memory competes with the mining mirror, and the two together are not
	// measured in partitioned (memory_fraction) mining yet.
	// engine.gpu.count3_on_device, --gpu-count3-on-device.
	Count3Device bool
	// CountSmallOnHost counts motif/count3's Small family (two-edge and
	// two-node four-edge count queries) on the host's cores instead of
	// mining them with the kernel. Off by default: the counting costs the
	// whole window, which the kernel beats at narrow δ;
	// scripts/bench-small.sh prices the two on a device.
	// engine.gpu.count_small_on_host, --gpu-count-small-on-host.
	CountSmallOnHost bool

	// tune: the kernel's thresholds and switches; the zero value is the
	// measured defaults. Tests force the kernel's rare paths through it
	// (export_test.go's WithTuning).
	tune tuning
}

// tuning holds the mining kernel's thresholds and feature switches. Each
// default is a measured rule (BENCHMARKS.md); a field's zero value means
// its default, a negative one "never" where that applies. They are not
// configuration: tests set them to drive every path of the kernel against
// the oracle, and an experiment that sweeps one adds a variant to
// BenchmarkRows (gpu/rows_cuda_test.go).
type tuning struct {
	// ExpandRun is the longest run of the step above a counted last step
	// that the mining kernel expands across a warp's lanes (every
	// candidate of a chunk's short runs checked at once, their last-step
	// runs counted together) instead of binding its candidates one at a
	// time; longer runs are walked depth-first and split between warps.
	// 0: 512; negative: never.
	ExpandRun int
	// SplitTail is the length past which a counted last step's swept run
	// is cut into tasks of this many candidates for idle warps (a heavy
	// candidate's run on a small graph with a wide window). 0: 2048;
	// negative: never.
	SplitTail int
	// SplitRun is the length of a candidate's next-step run from which,
	// while warps wait for work, the mining kernel hands that candidate of
	// a chunk to an idle warp as a task of its own (count mode, steps above
	// the one over the counted last step) instead of walking it after the
	// chunk's other candidates. Only heavy candidates: a task costs
	// microseconds on the queue's lock. 0: 256; negative: never.
	SplitRun int
	// RootGuide sets how many roots a warp of the mining kernel claims at
	// a time: the roots left divided by RootGuide times the launch's
	// warps, between 1 and RootClaim (guided self-scheduling: the last
	// claims are single roots, and a batch of fewer roots than RootClaim
	// per warp is spread over every warp). 0: 4; negative: always
	// RootClaim.
	RootGuide int
	// RootClaim is the most roots a warp claims at a time, rounded up to
	// a multiple of 32 (a warp walks them 32 at a time): larger claims
	// cost fewer atomics on the shared root counter, which bound a window
	// of light roots. 0: 128.
	RootClaim int
	// ChunkRoots is the fewest roots a one-query launch of a four-edge
	// plan mines for its claims to be whole chunks of 32 roots
	// (chunkClaim: never guided down to single roots). 0: 2^20;
	// negative: never.
	ChunkRoots int64
	// BatchGroup interleaves a MineBatch launch's queries by groups of this
	// many roots (a warp mines the same roots for query after query while
	// their neighbourhoods are in its caches) instead of mining them query
	// after query. 0: query after query.
	BatchGroup int
	// BatchSplitPruned mines a MineBatch's plans in two launches, those
	// with the closing-edge pruning on its build and the others on the
	// plain build, instead of one launch on the pruning's build.
	BatchSplitPruned bool
	// NoGallop turns off galloping back from a run's end to its start
	// (binary search over the whole list instead).
	NoGallop bool
	// NoClosePrune turns off the closing-edge pruning: a query with a
	// closing edge whose first-mapped endpoint is mapped two or more steps
	// before it drops, at every step between, the partial matches for which
	// that endpoint has no edge left that could close the motif (Everest's
	// early pruning; counts unchanged). It runs on a kernel build of its
	// own, for the plans whose shape says it pays (closePays: of the
	// built-in motifs M3, M4, M9, M11, M12); every other plan runs the
	// plain build.
	NoClosePrune bool
	// ClosePruneAll prunes every plan that has such a closing edge (M7,
	// M10, M13 too), not only those closePays picks.
	ClosePruneAll bool
	// ClosePruneRoot lays the pruning out, in a plan with two closing
	// edges it could serve, on one whose anchor is an endpoint of the root
	// (closePrune's rootFirst; light launches choose so, encodeLight)
	// rather than the one whose anchor was mapped longest before it.
	ClosePruneRoot bool
	// NoCompact turns off the gathering of the expanded step's surviving
	// candidates into full warps before their last-step runs are searched
	// and counted (a closing step keeps few of its candidates), which the
	// pruning's kernel build does (the plain build never gathers).
	NoCompact bool
	// PreScan is the longest run of a closing step (both endpoints
	// mapped) walked depth-first that the lane finding it scans for the
	// edges to its target first, cutting it to the span from the first
	// to the last (none: the candidate is dropped) instead of handing it
	// to the walk as a chunk of its own whose lanes mostly fail (M10's
	// triangle edge 3->1, two steps above the counted last). 0: 16;
	// negative: never.
	PreScan int
	// RankPick: a closing step scans the list whose run's end is its next
	// edge's rank there wherever that list is at most RankPick times the
	// other's length, instead of always the shorter one, whose end would
	// be a binary search over the whole list (a hub's: ncu found M13's
	// hottest loop there, 4 lanes of 32 active). 0: 32, the fastest
	// measured (tg10m rows 0.963 of never, z06 0.938; 8: 0.977, 0.981);
	// negative: always the shorter.
	RankPick int
	// Expand2Run is the longest run of the step two above a counted last
	// step (plans of four edges or more) that the mining kernel expands
	// across a warp's lanes together with the step after it (expand2),
	// instead of binding that step's candidates one at a time; the plans
	// whose shape says it pays (expand2Pays: every built-in motif of four
	// edges or more but M10) run the kernel's build with it (mine6x,
	// mine6px) on launches of at least Expand2Roots roots. 0: 512;
	// negative: off.
	Expand2Run int
	// Expand2Roots is the fewest roots a one-query launch mines for it to
	// run expand2 (smaller windows are bound by a launch's latency and
	// tail, not by idle lanes: CollegeMsg's 60k roots lost 10-19% with it
	// on several motifs at delta 86400). 0: 2^20.
	Expand2Roots int64
	// Expand2Fanout is the least mean step-1 run per root (edges within
	// delta before the root in the list step 1 scans, estimated from 64
	// roots of the launch on the host: firstRunMean) for a plan of five
	// edges or more, whose expanded step lies two steps or more below the
	// root, to run expand2: on a light window few partial matches get
	// that far, and the expand2 build's heavier common path cost z06's
	// M11-M13 (mean run 0.41) 4-23% where tg10m's (6.4) gained up to 12%.
	// 0: 2; negative: no such floor (every launch of Expand2Roots roots
	// or more runs it).
	Expand2Fanout int
	// Expand2All runs expand2 on every plan it applies to (M10 too) and
	// every launch, whatever its size and fanout.
	Expand2All bool
	// NoAnchor runs no plan on the anchor builds (mine6a, mine6ax: runs
	// from the previous edge's rank, a closing last step on its ranked
	// list; gpu/anchor.go): every launch runs the builds it would without
	// them. By default the plans with a step they anchor (anchorPays: of
	// the built-in motifs M2 and M7) run them on one-query launches.
	NoAnchor bool
	// AnchorAll runs every plan without the closing-edge pruning on the
	// anchor builds (one-query launches), not only those anchorPays picks.
	AnchorAll bool
}

func (o Options) withDefaults() Options {
	if o.OutRecords <= 0 {
		o.OutRecords = 1 << 20
	}
	if o.QueueTasks <= 0 {
		o.QueueTasks = 1 << 16
	}
	if o.MemoryFraction <= 0 {
		o.MemoryFraction = 0.3
	}
	o.tune = o.tune.withDefaults()
	return o
}

func (t tuning) withDefaults() tuning {
	if t.ExpandRun == 0 {
		t.ExpandRun = defaultExpandRun
	}
	if t.SplitTail == 0 {
		t.SplitTail = defaultSplitTail
	}
	if t.SplitRun == 0 {
		t.SplitRun = defaultSplitRun
	}
	if t.RootGuide == 0 {
		t.RootGuide = defaultRootGuide
	}
	if t.RootClaim <= 0 {
		t.RootClaim = defaultRootClaim
	}
	t.RootClaim = (max(t.RootClaim, 1) + 31) / 32 * 32
	if t.ChunkRoots == 0 {
		t.ChunkRoots = defaultChunkRoots
	}
	t.BatchGroup = max(t.BatchGroup, 0)
	if t.PreScan == 0 {
		t.PreScan = defaultPreScan
	}
	if t.RankPick == 0 {
		t.RankPick = defaultRankPick
	}
	if t.Expand2Run == 0 {
		t.Expand2Run = defaultExpand2Run
	}
	if t.Expand2Roots <= 0 {
		t.Expand2Roots = defaultExpand2Roots
	}
	if t.Expand2Fanout == 0 {
		t.Expand2Fanout = defaultExpand2Fanout
	}
	if t.Expand2All {
		t.Expand2Roots, t.Expand2Fanout = 0, -1
	}
	return t
}

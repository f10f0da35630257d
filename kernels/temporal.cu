// temporal.cu — the GPU temporal-motif engine: device window maintenance
// (stable radix sort, scans, CSR merge) and the generic mining kernel that
// interprets a compiled match plan held in constant memory.
//
// Built to PTX for sm_90 and committed beside this file (kernels/temporal.ptx)
// by `go generate ./kernels` (the command is in kernels.go). The Go binary
// embeds the PTX; the driver JIT-compiles it at start, so no nvcc is needed
// where it runs.
//
// gorgonia.org/cu passes every kernel parameter as 8 bytes: all parameters
// here are pointers or 64-bit integers.
//
// Semantics are exactly motif/engine_cpu.go's: the root is the LAST motif
// edge; each later step takes candidates from a time-ordered adjacency run
// bounded by the neighbouring matched edges, delta and per-hop limits;
// injectivity, predicates and anti-edges are checked at the step the plan
// places them. See gpu/plan.go for the constant-memory layout.

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

#define FULL 0xffffffffu
#define MAXK 8
#define MAXN 9
#define MAXPRED 16
#define MAXANTI 8
#define NOLIMIT (-1LL)
#define NOTOPEN ((i64)0x8000000000000000ULL)
#define MINPOS ((i64)0x8000000000000000ULL)

// ---- plan layout (mirrored by gpu/plan.go; every slot is an int64) ----
#define P_K 0
#define P_N 1
#define P_DELTA 2
#define P_TALLY 3
// P_RANKPICK: a closing step scans the list whose run's end comes from its
// next edge's rank (no binary search over the list) wherever that list is
// at most P_RANKPICK times the other's length; 0: always the shorter list
// (stepBounds). Slot 5 is unused: it and slot 4 held the thresholds from
// which closing edges and counted last steps read the pair-ordered
// adjacency, never faster at any value, whose code in every build cost
// instruction fetches (docs/GPU.md).
#define P_RANKPICK 4
#define P_GALLOP 6
// P_EXPAND: the longest run of the step above the counted last step that
// is expanded across lanes (expand); 0: never. P_SPLITTAIL: a counted last
// step's swept run longer than this is cut into tasks of this length for
// idle warps (tailCount); 0: never. P_SPLITRUN: a chunk's valid candidate
// whose next step's run is at least this long is handed to an idle warp as
// a task of its own (dfs, count mode); 0: never. P_GUIDE: a warp claims
// the roots left / (P_GUIDE x the grid's warps) roots at a time, 1 to
// P_CLAIM (mineBody); 0: always P_CLAIM.
#define P_EXPAND 7
#define P_STEPS 8
#define STEP_SZ 16
#define S_EDGE 0
#define S_FROM 1
#define S_TO 2
#define S_BIND 3
#define S_PREV 4
#define S_NEXT 5
#define S_HOPPREV 6
#define S_HOPNEXT 7
#define S_PREDMASK 8
#define S_ANTIMASK 9
#define S_NEWNODE 10
#define S_NMAPPED 11
#define S_NEXTFROM 12
#define S_NEXTTO 13
// S_CLOSE: the closing-edge pruning (P_CLOSE) at this step: 0 none; 1 the
// step maps the anchor (the closing edge's endpoint mapped first): each
// candidate finds the anchor's run of possible closing edges, dropped if
// empty; 2 the step's edge comes after the closing edge in time: a
// candidate is dropped unless the run's first entry is before it; 3 it
// comes before: unless the run's last entry is after it.
#define S_CLOSE 14
// S_PREVNODES (read by builds with F_ANCHOR only): the endpoints of the
// step's S_PREV edge, packed as (from + 1) | (to + 1) << 4 (0: no previous
// edge): when the step's list belongs to one of them, its run starts after
// that edge's rank there. Bits 8-9, a closing step's list: SCAN_OUT the
// From's out-list, SCAN_IN the To's in-list, 0 the shorter of the two.
#define S_PREVNODES 15
#define SCAN_OUT 1
#define SCAN_IN 2
#define P_PREDS (P_STEPS + STEP_SZ * MAXK)
#define PRED_SZ 10
#define PR_OP 0
#define PR_LKIND 1
#define PR_LINDEX 2
#define PR_LCOL 3
#define PR_RKIND 4
#define PR_RINDEX 5
#define PR_RCOL 6
#define PR_LISTOFF 7
#define PR_LISTLEN 8
#define P_ANTIS (P_PREDS + PRED_SZ * MAXPRED)
#define ANTI_SZ 4
#define P_NODEORDER (P_ANTIS + ANTI_SZ * MAXANTI)
#define P_SPLITTAIL (P_NODEORDER + 16)
#define P_SPLITRUN (P_SPLITTAIL + 1)
#define P_GUIDE (P_SPLITTAIL + 2)
// P_CLOSE: a closing step (both ends mapped) whose anchor endpoint is
// mapped two or more steps before it; every step between checks that the
// closing edge can still exist (Everest's early pruning on the closing
// constraint). PC_EDGE: its motif edge (-1: none); PC_NODE: the anchor
// (motif node); PC_SEL: the anchor's list holding the closing edge
// (SEL_OUT: the anchor is its source); PC_PREV, PC_NEXT: the matched
// edges around it once the anchor is mapped (-1: none before); PC_RANK:
// the rank (RK_*) of PC_NEXT's edge in that list, or -1.
#define P_CLOSE (P_SPLITTAIL + 3)
#define PC_EDGE 0
#define PC_NODE 1
#define PC_SEL 2
#define PC_PREV 3
#define PC_NEXT 4
#define PC_RANK 5
// P_COMPACT: expand gathers its survivors into full warps (an option:
// the same in every plan of a launch).
#define P_COMPACT (P_SPLITTAIL + 9)
// P_CLAIM: the most roots a warp claims at a time (a multiple of 32).
#define P_CLAIM (P_SPLITTAIL + 10)
// P_EXPAND2: the longest run of the step two above the counted last step
// that expand2 expands across lanes, with the step after it (a build with
// F_EXP2); 0: never. Per plan: the host sets it only where it applies.
#define P_EXPAND2 (P_SPLITTAIL + 11)
// P_PRESCAN: the longest run of a closing step walked depth-first (one
// evaluated as a chunk of its own) that the lane finding it scans for its
// target first, keeping only the span from its first to its last match;
// 0: never.
#define P_PRESCAN (P_SPLITTAIL + 12)
#define P_SIZE (P_SPLITTAIL + 13)

#define BIND_ROOT 0
#define BIND_FROM 1
#define BIND_TO 2
#define BIND_BOTH 3

#define OPK_LIT 0
#define OPK_LIST 1
#define OPK_EDGE 2
#define OPK_NODE 3

#define OP_EQ 0
#define OP_NE 1
#define OP_LT 2
#define OP_LE 3
#define OP_GT 4
#define OP_GE 5
#define OP_IN 6
#define OP_NOTIN 7

// MAXQ plans side by side (one launch mines up to MAXQ queries: a
// streaming batch's queries share the window and the roots). Query q's
// plan is P[q * P_SIZE ...], its literals PF[q * PF_SIZE ...]; a warp
// reads its current query's through pl and pfl.
#define MAXQ 16
__constant__ i64 P[MAXQ * P_SIZE];
// PF[2*i], PF[2*i+1]: literal values of predicate i's operands; lists from PF_LIST.
#define PF_LIST 32
#define PF_SIZE 128
__constant__ double PF[MAXQ * PF_SIZE];

// ---- device window (gpu/window.go writes this struct: 8-byte slots) ----
struct Win {
	const u32 *src, *dst;
	const i64 *t;
	i64 base;  // position of column slot 0
	const u32 *outOff;
	const i64 *outT, *outPos;
	const u32 *outOther;
	const u32 *inOff;
	const i64 *inT, *inPos;
	const u32 *inOther;
	const double *eattr;  // column c of slot s at eattr[c*ecap + s]
	i64 ecap;
	const double *nattr;  // column c of node v at nattr[c*ncap + v]
	i64 ncap;
	i64 nverts;
	// The out-adjacency again, each vertex's entries in (other, position)
	// order (segments at outOff): pair runs by binary search.
	const i64 *pT, *pPos;
	const u32 *pOther;
	// Per column slot of edge e = u->v (see gpu/window_cuda.go): e's index
	// in out(u) [0] and in(v) [1]; entries of in(u) [2] and out(v) [3]
	// before e. rank[r * rankCap + slot].
	const u32 *rank;
	i64 rankCap;
};
#define RK_OUTSRC 0
#define RK_INDST 1
#define RK_INSRC 2
#define RK_OUTDST 3

// A run's list: 0 the out-list of listNode, 1 its in-list, 3 the pair
// arrays (anti-edges' pairRun reads them; 2 marks the roots).
#define SEL_OUT 0
#define SEL_IN 1
#define SEL_PAIR 3
__device__ __forceinline__ const i64 *selT(const Win &w, int sel) { return sel == SEL_OUT ? w.outT : (sel == SEL_IN ? w.inT : w.pT); }
__device__ __forceinline__ const i64 *selPos(const Win &w, int sel) { return sel == SEL_OUT ? w.outPos : (sel == SEL_IN ? w.inPos : w.pPos); }
__device__ __forceinline__ const u32 *selOther(const Win &w, int sel) { return sel == SEL_OUT ? w.outOther : (sel == SEL_IN ? w.inOther : w.pOther); }

// pairRun finds the edges u->v inside the position bounds (lowPos, hiPos)
// and time bounds [lowT, hiT]: [*ra, *rb) in the pair arrays. Within a
// pair's run positions and times both increase, so each bound is one
// binary search over u's segment keyed by (other, position).
__device__ void pairRun(const Win &w, u32 u, u32 v, i64 lowPos, i64 hiPos, i64 lowT, i64 hiT, u32 *ra, u32 *rb) {
	u32 lo = w.outOff[u], hi = w.outOff[u + 1];
	const u32 seg = lo;
	while (lo < hi) {  // first entry past the pair's run inside the upper bounds
		u32 h = lo + ((hi - lo) >> 1);
		u32 o = w.pOther[h];
		if (o < v || (o == v && w.pPos[h] < hiPos && w.pT[h] <= hiT)) lo = h + 1; else hi = h;
	}
	u32 ub = lo;
	lo = seg; hi = ub;
	while (lo < hi) {  // first entry of the pair after lowPos and at or after lowT
		u32 h = lo + ((hi - lo) >> 1);
		u32 o = w.pOther[h];
		if (o < v || (o == v && (w.pPos[h] <= lowPos || w.pT[h] < lowT))) lo = h + 1; else hi = h;
	}
	*ra = lo;
	*rb = ub;
}

// ---- control block (u64 slots; gpu/engine.go reads it) ----
#define C_ROOTNEXT 0
#define C_MATCHES 1
#define C_OPEN 2
#define C_ACTIVE 3
#define C_LOCK 4
#define C_QSIZE 5
#define C_OVERFLOW 6
#define C_OUTCOUNT 7
#define C_SPLITS 8
#define C_IDLE 9
// Slot 10 is unused (it counted claimed roots; the host counts roots).
// The work budget (motif.Request.Budget/Deadline): steps done (candidates
// evaluated, runs tallied), the budget (0: none), the flag that stops
// every warp, and the nanoseconds left for this launch (0: no deadline).
#define C_STEPS 11
#define C_BUDGET 12
#define C_TRUNC 13
#define C_NSLEFT 14
#define C_SIZE 16

// A task is a subtree: the partial match bound by steps < d and the
// candidate run [a, b) of step d (absolute indices into the step's list;
// root indices relative to rootLo at d == 0).
struct Task {
	i64 pos[MAXK];
	i64 tm[MAXK];
	i64 node[MAXN];
	i64 openAt;
	i64 d;
	i64 a, b;
	i64 sel, listNode, target;
	i64 q;  // the query
};

// Per-warp search state, in shared memory.
struct WS {
	i64 pos[MAXK], tm[MAXK], openAt[MAXK];
	i64 until[MAXK][32];
	u32 node[MAXN];
	u32 a[MAXK], b[MAXK], base[MAXK], mask[MAXK], cur[MAXK];
	u32 heavy[MAXK];  // candidates of mask[d] whose run is >= P_SPLITRUN
	u32 listNode[MAXK], target[MAXK];
	int sel[MAXK];  // 0 out-list of listNode, 1 in-list, 2 roots
	u64 steps;      // work not yet added to C_STEPS (lane 0)
	// The query being mined: its plan at P[qp], literals at PF[qf], its
	// counters in the control block at ctl[q * C_SIZE].
	int q, qp, qf;
	// mineBody's claim (the root slots left of it, [claimNext, claimEnd);
	// none for a task) and the query whose counts the lanes hold: kept
	// here, not in registers live across the search.
	u64 claimNext, claimEnd;
	int taskD;  // a task's step
	int countsOf;
	// The run of step d+1 for each candidate of step d's current chunk,
	// computed lane-parallel when the chunk is evaluated: ra/rb [d+1][lane].
	u32 ra[MAXK][32], rb[MAXK][32], rtarget[MAXK][32], rnode[MAXK][32];
	unsigned char rsel[MAXK][32];
};

// F, the mining kernel's optional features, is a template parameter: each
// build holds only the code (and the per-warp state) of its features, so a
// plan that does not use one runs a build without it (the closing-edge
// pruning and the gathering made the one build that had them spill 32/42/68
// bytes instead of 16/28/40, and cost every query 11-33% on the H200;
// BENCHMARKS.md, "Kernels per feature"). gpu/kernelnames.go picks the build
// per launch. A build without F_PRUNE never reads S_CLOSE or P_CLOSE (a plan
// encoded with them is mined unpruned, with the same counts); one without
// F_COMPACT never reads P_COMPACT.
#define F_PRUNE 1    // the closing-edge pruning (S_CLOSE, P_CLOSE)
#define F_COMPACT 2  // expand gathers its survivors into full warps (P_COMPACT)
#define F_EXP2 4     // expand2: two levels above the counted last step across lanes (P_EXPAND2)
#define F_ANCHOR 8   // runs from the previous edge's rank, closing lists from the host (S_PREVNODES)
#define F_PRESCAN 16 // a closing step's short run scanned for its target before the walk (P_PRESCAN)
#define F_CHECKS 32  // predicates, anti-edges (S_PREDMASK, S_ANTIMASK) and the match output (enumerate mode)
// OPEN(e) is e, an open anti-edge interval's end, in builds with F_CHECKS;
// without, no match is open (only anti-edges make one), so every test of
// it folds away.
#define OPEN(e) ((F & F_CHECKS) ? (e) : NOTOPEN)

// WSX is WS with the features' per-warp state, for builds that have them.
struct WSX : WS {
	// The closing-edge pruning (P_CLOSE): the anchor's run's first and
	// last positions per candidate of the anchor step's chunk, and those
	// of the bound candidate (MINPOS / I64MAX: prune nothing, in a task).
	i64 cfirst[32], clast[32];
	i64 cfB, clB;
	// expand's gathered survivors (P_COMPACT): owner lane and list index.
	u32 xidx[64];
	unsigned char xj[64];
};
// GB: expand2's gathered survivors (F_EXP2): owner lane, list index and
// next-step run of up to 63 candidates of its outer step.
struct GB {
	u32 idx[64], ra[64], rb[64];
	unsigned char j[64];
	u32 off[32];  // each lane's run's offset in the concatenation
};
struct WSY : WS { GB g; };
struct WSXY : WSX { GB g; };
template <int F> struct WSOfB { typedef WSXY T; };
template <> struct WSOfB<0> { typedef WS T; };
template <> struct WSOfB<F_PRUNE | F_COMPACT> { typedef WSX T; };
template <> struct WSOfB<F_EXP2> { typedef WSY T; };
// F_ANCHOR, F_PRESCAN and F_CHECKS keep no per-warp state.
template <int F> struct WSOf { typedef typename WSOfB<F & ~(F_ANCHOR | F_PRESCAN | F_CHECKS)>::T T; };
// gb: expand2's buffer of a warp whose WS is a WSY or WSXY (F_EXP2 builds).
template <int F> __device__ __forceinline__ GB &gb(WS &ws) {
	return (F & (F_PRUNE | F_COMPACT)) ? static_cast<WSXY &>(ws).g : static_cast<WSY &>(ws).g;
}
// wx: the features' state of a warp whose WS is a WSX (builds with F != 0
// only: mineBody allocates WSOf<F>).
__device__ __forceinline__ WSX &wx(WS &ws) { return static_cast<WSX &>(ws); }
__device__ __forceinline__ const WSX &wx(const WS &ws) { return static_cast<const WSX &>(ws); }

#define WARPS 4
#define REC (MAXK + 1)  // enumerate record: k positions, then openUntil

struct Ctx {
	Win w;
	i64 rootLo, rootHi, horizon;
	const unsigned char *rootMask;
	u64 *ctl;
	Task *queue;
	i64 queueCap, splitCap;
	i64 *out;
	i64 outCap;
	int enumerate;
	i64 nq;        // queries in this launch (their plans: P, PF)
	bool limited;  // a budget or a deadline is set
	u64 budget;    // C_BUDGET
	u64 deadline;  // %globaltimer value to stop at; 0: none
};

// Cur is a candidate not yet written to the shared state: its edge and
// the nodes it would map. Checks read through it. An expanded candidate
// (expand) is two unbound steps: its owner's edge and nodes (edge, n1,
// n2) and its own (edge2, n3); edge2 and n3 are -1 otherwise. Under
// expand2 (F_EXP2) three: the owner's, the outer step's (edge2, n3) and
// the inner step's (edge3, n4); -1 in every other build.
struct Cur {
	int edge, edge2, edge3;
	i64 pos, t, pos2, t2, pos3, t3;
	int n1, n2, n3, n4;
	u32 v1, v2, v3, v4;
};

// Interval ends saturate at the int64 range (motif.AddTicks/SubTicks; d
// >= 0 here): no edge time lies outside it, so a clamped end selects the
// edges the true end selects, where a wrapped one selects none or all.
#define I64MAX 0x7fffffffffffffffLL
__device__ __forceinline__ i64 addTicks(i64 t, i64 d) { return t > I64MAX - d ? I64MAX : t + d; }
__device__ __forceinline__ i64 subTicks(i64 t, i64 d) { return t < MINPOS + d ? MINPOS : t - d; }

// opt: an engine option's slot (P_GALLOP,
// P_EXPAND, P_SPLITTAIL, P_SPLITRUN, P_GUIDE), the same in every plan of
// a launch: read from query 0's, at a fixed address.
__device__ __forceinline__ i64 opt(int i) { return P[i]; }
// pl, pfl, stepv: slots of the warp's current query's plan. M: the
// launch mines several queries (mineq*), each warp's current one at its
// own offset into P and PF; otherwise (mine*) the one plan is at offset 0,
// read at fixed addresses (no per-warp offset held across the search:
// reading through one cost mine6 26/64 bytes of spills).
template <bool M> __device__ __forceinline__ i64 pl(const WS &ws, int i) { return M ? P[ws.qp + i] : P[i]; }
template <bool M> __device__ __forceinline__ double pfl(const WS &ws, int i) { return M ? PF[ws.qf + i] : PF[i]; }
template <bool M> __device__ __forceinline__ i64 stepv(const WS &ws, int d, int f) { return pl<M>(ws, P_STEPS + d * STEP_SZ + f); }
// qOf: the warp's current query (its control block's index).
template <bool M> __device__ __forceinline__ int qOf(const WS &ws) { return M ? ws.q : 0; }
__device__ __forceinline__ void setQuery(WS &ws, int q) { ws.q = q; ws.qp = q * P_SIZE; ws.qf = q * PF_SIZE; }

// The third slot (edge3, n4) is tested only when set (>= 0): in the
// builds without expand2 it is -1 at compile time and the test folds away
// (e == -1 alone would not: a plan slot can be -1).
__device__ __forceinline__ i64 posOf(const WS &ws, const Cur &c, int e) {
	return e == c.edge ? c.pos : (e == c.edge2 ? c.pos2 : (c.edge3 >= 0 && e == c.edge3 ? c.pos3 : ws.pos[e]));
}
__device__ __forceinline__ i64 tmOf(const WS &ws, const Cur &c, int e) {
	return e == c.edge ? c.t : (e == c.edge2 ? c.t2 : (c.edge3 >= 0 && e == c.edge3 ? c.t3 : ws.tm[e]));
}
__device__ __forceinline__ u32 nodeOf(const WS &ws, const Cur &c, int n) {
	return n == c.n1 ? c.v1 : (n == c.n2 ? c.v2 : (n == c.n3 ? c.v3 : (c.n4 >= 0 && n == c.n4 ? c.v4 : ws.node[n])));
}
// noCur: a Cur that overlays nothing (the shared state alone).
__device__ __forceinline__ Cur noCur() {
	Cur c;
	c.edge = -1; c.edge2 = -1; c.edge3 = -1; c.n1 = -1; c.n2 = -1; c.n3 = -1; c.n4 = -1;
	c.pos = 0; c.t = 0; c.pos2 = 0; c.t2 = 0; c.pos3 = 0; c.t3 = 0; c.v1 = 0; c.v2 = 0; c.v3 = 0; c.v4 = 0;
	return c;
}
// ownerCur: lane j's partial match c, one unbound step (edge, n1, n2), as
// this lane's Cur (every lane shuffles).
__device__ __forceinline__ Cur ownerCur(const Cur &c, int j) {
	Cur cc = noCur();
	cc.edge = c.edge;
	cc.pos = __shfl_sync(FULL, c.pos, j);
	cc.t = __shfl_sync(FULL, c.t, j);
	cc.n1 = __shfl_sync(FULL, c.n1, j); cc.v1 = __shfl_sync(FULL, c.v1, j);
	cc.n2 = __shfl_sync(FULL, c.n2, j); cc.v2 = __shfl_sync(FULL, c.v2, j);
	return cc;
}
// addCand writes the candidate of an expanded step into the Cur's next
// free slot (L = 0: edge2/n3; L = 1: edge3/n4); nn -1: no new node.
template <int L>
__device__ __forceinline__ void addCand(Cur &cc, int e, i64 pos, i64 t) {
	if (L) { cc.edge3 = e; cc.pos3 = pos; cc.t3 = t; }
	else { cc.edge2 = e; cc.pos2 = pos; cc.t2 = t; }
}
template <int L>
__device__ __forceinline__ void addNode(Cur &cc, int nn, u32 v) {
	if (L) { cc.n4 = nn; cc.v4 = v; }
	else { cc.n3 = nn; cc.v3 = v; }
}

__device__ double operand(const Ctx &x, const WS &ws, const Cur &c, int kind, int index, int col, double lit) {
	if (kind == OPK_EDGE) return x.w.eattr[(i64)col * x.w.ecap + (posOf(ws, c, index) - x.w.base)];
	if (kind == OPK_NODE) return x.w.nattr[(i64)col * x.w.ncap + nodeOf(ws, c, index)];
	return lit;
}

template <bool M, int F>
__device__ bool holds(const Ctx &x, const WS &ws, const Cur &c, int pi) {
	const int b = P_PREDS + pi * PRED_SZ;
	int op = (int)pl<M>(ws, b + PR_OP);
	double l = operand(x, ws, c, (int)pl<M>(ws, b + PR_LKIND), (int)pl<M>(ws, b + PR_LINDEX), (int)pl<M>(ws, b + PR_LCOL), pfl<M>(ws, 2 * pi));
	if (op == OP_IN || op == OP_NOTIN) {
		bool in = false;
		int off = (int)pl<M>(ws, b + PR_LISTOFF), n = (int)pl<M>(ws, b + PR_LISTLEN);
		for (int i = 0; i < n; i++)
			if (l == pfl<M>(ws, PF_LIST + off + i)) in = true;
		return in == (op == OP_IN);
	}
	double r = operand(x, ws, c, (int)pl<M>(ws, b + PR_RKIND), (int)pl<M>(ws, b + PR_RINDEX), (int)pl<M>(ws, b + PR_RCOL), pfl<M>(ws, 2 * pi + 1));
	switch (op) {
	case OP_EQ: return l == r;
	case OP_NE: return l != r;
	case OP_LT: return l < r;
	case OP_LE: return l <= r;
	case OP_GT: return l > r;
	case OP_GE: return l >= r;
	}
	return false;
}

// anti checks anti-edge ai for one candidate: no edge From->To after the
// edge matched to motif edge After, up to min(t_After + Within, t_0 + Delta):
// one pair-run search.
template <bool M, int F>
__device__ bool anti(const Ctx &x, const WS &ws, const Cur &c, int ai, i64 *until) {
	const int b = P_ANTIS + ai * ANTI_SZ;
	int from = (int)pl<M>(ws, b), to = (int)pl<M>(ws, b + 1), after = (int)pl<M>(ws, b + 2);
	i64 within = pl<M>(ws, b + 3);
	i64 limit = addTicks(tmOf(ws, c, 0), pl<M>(ws, P_DELTA));
	if (within != NOLIMIT) limit = min(limit, addTicks(tmOf(ws, c, after), within));
	u32 u = nodeOf(ws, c, from), v = nodeOf(ws, c, to);
	i64 pa = posOf(ws, c, after);
	// The first edge u->v after pa is the earliest: present if it is in time.
	u32 ra, rb;
	pairRun(x.w, u, v, pa, 0x7fffffffffffffffLL, MINPOS, limit, &ra, &rb);
	if (ra < rb) return false;
	*until = limit > x.horizon ? limit : NOTOPEN;
	return true;
}

// Bounds of a step's run: the list and the position/time limits.
struct Bounds {
	u32 lo, hi;  // the vertex's whole list
	u32 rankHi;  // entries before the next edge (from its ranks), or hi
	bool exact;  // rankHi is the run's end (no hop bound tightens it)
	i64 lowPos, hiPos, lowT, hiT;
	int sel;
	u32 listNode, target;
	// Set by builds with F_ANCHOR only (stepBounds), where lo is raised
	// past the previous edge when its ranks give the run's start:
	bool fromRank;  // lo is the previous edge's rank
	bool exactLo;  // lo is the run's start (no hop bound raises it)
};

// stepBounds derives step d's list and limits from the state plus a
// candidate c (Cur), as motif/engine_cpu.go's descend does. Returns false
// when the time bounds are empty.
template <bool M, int F>
__device__ bool stepBounds(const Ctx &x, const WS &ws, const Cur &c, int d, Bounds *o) {
	const int k = (int)pl<M>(ws, P_K);
	int prev = (int)stepv<M>(ws, d, S_PREV), next = (int)stepv<M>(ws, d, S_NEXT);
	o->lowPos = prev >= 0 ? posOf(ws, c, prev) : MINPOS;
	o->hiPos = posOf(ws, c, next);
	o->lowT = subTicks(tmOf(ws, c, k - 1), pl<M>(ws, P_DELTA));
	o->hiT = tmOf(ws, c, next);
	i64 hn = stepv<M>(ws, d, S_HOPNEXT), hp = stepv<M>(ws, d, S_HOPPREV);
	if (hn != NOLIMIT) o->lowT = max(o->lowT, subTicks(tmOf(ws, c, next), hn));
	if (hp != NOLIMIT) o->hiT = min(o->hiT, addTicks(tmOf(ws, c, prev), hp));
	if (o->lowT > o->hiT) return false;
	int bind = (int)stepv<M>(ws, d, S_BIND);
	u32 from = nodeOf(ws, c, (int)stepv<M>(ws, d, S_FROM)), to = nodeOf(ws, c, (int)stepv<M>(ws, d, S_TO));
	const Win &w = x.w;
	bool useOut = bind == BIND_FROM;
	o->target = 0xffffffffu;
	if (bind == BIND_BOTH) {
		// A closing edge: scan the shorter of the two lists' runs.
		u32 outLen = w.outOff[from + 1] - w.outOff[from], inLen = w.inOff[to + 1] - w.inOff[to];
		useOut = outLen <= inLen;
		const i64 pick = pl<M>(ws, P_RANKPICK);
		if (pick > 0 && hp == NOLIMIT) {
			// One list is its next edge's endpoint's: its run ends at that
			// edge's rank there, where the other's end is a binary search
			// over its whole list (a hub's: ~16 dependent loads, lanes
			// diverging). Scan it unless it is much the longer.
			const int sf = (int)stepv<M>(ws, d, S_FROM), st = (int)stepv<M>(ws, d, S_TO);
			const int nf = (int)stepv<M>(ws, d, S_NEXTFROM), nt = (int)stepv<M>(ws, d, S_NEXTTO);
			const bool rOut = sf == nf || sf == nt, rIn = st == nf || st == nt;
			if (rOut && !rIn) useOut = (u64)outLen <= (u64)inLen * (u64)pick;
			else if (rIn && !rOut) useOut = (u64)inLen > (u64)outLen * (u64)pick;
		}
		if (F & F_ANCHOR) {
			// The host's pick (gpu/anchor.go): the list whose run's ends
			// come from ranks, where the other's would be searched for.
			const int scan = ((int)stepv<M>(ws, d, S_PREVNODES) >> 8) & 3;
			if (scan == SCAN_OUT) useOut = true;
			else if (scan == SCAN_IN) useOut = false;
		}
		o->target = useOut ? to : from;
	}
	if (useOut) {
		o->lo = w.outOff[from]; o->hi = w.outOff[from + 1]; o->sel = 0; o->listNode = from;
	} else {
		o->lo = w.inOff[to]; o->hi = w.inOff[to + 1]; o->sel = 1; o->listNode = to;
	}
	// The run ends before the next edge in time: when the list is one of
	// its endpoints', its rank there is the end (entries before it).
	o->rankHi = o->hi;
	o->exact = false;
	int ln = (int)(useOut ? stepv<M>(ws, d, S_FROM) : stepv<M>(ws, d, S_TO));
	int nf = (int)stepv<M>(ws, d, S_NEXTFROM), nt = (int)stepv<M>(ws, d, S_NEXTTO);
	int rk = -1;
	if (useOut) rk = ln == nf ? RK_OUTSRC : (ln == nt ? RK_OUTDST : -1);
	else rk = ln == nt ? RK_INDST : (ln == nf ? RK_INSRC : -1);
	if (rk >= 0) {
		o->rankHi = o->lo + w.rank[(i64)rk * w.rankCap + (o->hiPos - w.base)];
		o->exact = hp == NOLIMIT;
	}
	if (F & F_ANCHOR) {
		// The run starts after the previous edge: when the list is one of
		// its endpoints', from its rank there (past it in its own list; in
		// the other endpoint's, the entries before it).
		o->fromRank = o->exactLo = false;
		const int pn = (int)stepv<M>(ws, d, S_PREVNODES) & 0xff;
		if (pn != 0) {
			const int pf = (pn & 15) - 1, pt = (pn >> 4) - 1;
			int rp = -1, own = 0;
			if (useOut) { if (ln == pf) { rp = RK_OUTSRC; own = 1; } else if (ln == pt) rp = RK_OUTDST; }
			else { if (ln == pt) { rp = RK_INDST; own = 1; } else if (ln == pf) rp = RK_INSRC; }
			if (rp >= 0) {
				o->lo += w.rank[(i64)rp * w.rankCap + (o->lowPos - w.base)] + own;
				o->fromRank = true;
				o->exactLo = hn == NOLIMIT;
			}
		}
	}
	return o->lo < o->hi;
}

// laneSearch finds the run of Bounds b by one thread's binary searches.
__device__ void laneSearch(const Ctx &x, const WS &ws, const Bounds &b, u32 *ra, u32 *rb) {
	const i64 *T = selT(x.w, b.sel);
	const i64 *Pos = selPos(x.w, b.sel);
	u32 lo = b.lo, hi = b.rankHi;
	if (!b.exact) {
		while (lo < hi) {  // first entry not before (hiPos, hiT)
			u32 h = lo + ((hi - lo) >> 1);
			if (Pos[h] < b.hiPos && T[h] <= b.hiT) lo = h + 1; else hi = h;
		}
	}
	u32 ub = hi;
	lo = b.lo; hi = ub;
	if (opt(P_GALLOP) != 0) {
		// The run ends at ub and is usually short against the list (a
		// window's worth of a hub's edges): gallop back from ub so the
		// search costs the log of the run, not of the list.
		u32 step = 1;
		while (step <= hi - lo) {
			u32 probe = hi - step;
			if (Pos[probe] <= b.lowPos || T[probe] < b.lowT) { lo = probe + 1; break; }
			hi = probe;
			step <<= 1;
		}
	}
	while (lo < hi) {  // first entry after lowPos and at or after lowT
		u32 h = lo + ((hi - lo) >> 1);
		if (Pos[h] <= b.lowPos || T[h] < b.lowT) lo = h + 1; else hi = h;
	}
	*ra = lo;
	*rb = ub;
}

// laneSearchA is laneSearch in the builds with F_ANCHOR: where b.fromRank,
// b.lo is the previous edge's rank, and the run's end is galloped to from
// there (SEARCH picks one per build; the
// other builds keep laneSearch's code as it was).
__device__ void laneSearchA(const Ctx &x, const WS &ws, const Bounds &b, u32 *ra, u32 *rb) {
	const i64 *T = selT(x.w, b.sel);
	const i64 *Pos = selPos(x.w, b.sel);
	u32 lo = b.lo, hi = b.rankHi;
	if (!b.exact) {
		if (b.fromRank) {
			// The run starts at lo (the previous edge's rank) and is
			// short against the list: gallop forward to its end, so the
			// search costs the log of the run, not of the list.
			u32 step = 1;
			while (step <= hi - lo) {
				u32 probe = lo + step - 1;
				if (!(Pos[probe] < b.hiPos && T[probe] <= b.hiT)) { hi = probe; break; }
				lo = probe + 1;
				step <<= 1;
			}
		}
		while (lo < hi) {  // first entry not before (hiPos, hiT)
			u32 h = lo + ((hi - lo) >> 1);
			if (Pos[h] < b.hiPos && T[h] <= b.hiT) lo = h + 1; else hi = h;
		}
	}
	u32 ub = hi;
	lo = b.lo; hi = ub;
	if (b.exactLo) {
		*ra = min(lo, ub);
		*rb = ub;
		return;
	}
	if (opt(P_GALLOP) != 0) {
		// The run ends at ub and is usually short against the list (a
		// window's worth of a hub's edges): gallop back from ub so the
		// search costs the log of the run, not of the list.
		u32 step = 1;
		while (step <= hi - lo) {
			u32 probe = hi - step;
			if (Pos[probe] <= b.lowPos || T[probe] < b.lowT) { lo = probe + 1; break; }
			hi = probe;
			step <<= 1;
		}
	}
	while (lo < hi) {  // first entry after lowPos and at or after lowT
		u32 h = lo + ((hi - lo) >> 1);
		if (Pos[h] <= b.lowPos || T[h] < b.lowT) lo = h + 1; else hi = h;
	}
	*ra = lo;
	*rb = ub;
}

// SEARCH is laneSearch, or laneSearchA in a build with F_ANCHOR.
#define SEARCH(F, ...) (((F) & F_ANCHOR) ? laneSearchA(__VA_ARGS__) : laneSearch(__VA_ARGS__))

// closeRun finds, for a candidate c of the anchor step (S_CLOSE 1), the
// anchor's entries in the closing edge's list inside the bounds known
// once c is bound (after PC_PREV, before PC_NEXT, not before the root's
// time less delta): their first and last positions. False when there is
// none: no closing edge can follow, whatever the steps between bind.
template <bool M, int F>
__device__ bool closeRun(const Ctx &x, const WS &ws, const Cur &c, i64 *first, i64 *last) {
	const Win &w = x.w;
	const int k = (int)pl<M>(ws, P_K);
	const int prev = (int)pl<M>(ws, P_CLOSE + PC_PREV), next = (int)pl<M>(ws, P_CLOSE + PC_NEXT);
	const int sel = (int)pl<M>(ws, P_CLOSE + PC_SEL);
	const i64 rk = pl<M>(ws, P_CLOSE + PC_RANK);
	Bounds b;
	b.lowPos = prev >= 0 ? posOf(ws, c, prev) : MINPOS;
	b.hiPos = posOf(ws, c, next);
	b.lowT = subTicks(tmOf(ws, c, k - 1), pl<M>(ws, P_DELTA));
	b.hiT = tmOf(ws, c, next);
	const u32 a = nodeOf(ws, c, (int)pl<M>(ws, P_CLOSE + PC_NODE));
	b.sel = sel;
	b.listNode = a;
	b.target = 0xffffffffu;
	if (sel == SEL_OUT) { b.lo = w.outOff[a]; b.hi = w.outOff[a + 1]; }
	else { b.lo = w.inOff[a]; b.hi = w.inOff[a + 1]; }
	if (b.lo >= b.hi || b.lowT > b.hiT) return false;
	b.rankHi = b.hi;
	b.exact = false;
	if (rk >= 0) {
		b.rankHi = b.lo + w.rank[rk * w.rankCap + (b.hiPos - w.base)];
		b.exact = true;
	}
	u32 ra, rb;
	laneSearch(x, ws, b, &ra, &rb);
	if (ra >= rb) return false;
	const i64 *Pos = selPos(w, sel);
	*first = Pos[ra];
	*last = Pos[rb - 1];
	return true;
}

// closeOk: candidate position p of a step with S_CLOSE code cl (2 or 3)
// leaves room for the closing edge in the anchor's run [cf, cl_].
__device__ __forceinline__ bool closeOk(int cl, i64 p, i64 cf, i64 clst) {
	return cl == 2 ? cf < p : clst > p;
}

template <bool M, int F>
__device__ __forceinline__ bool fresh(const WS &ws, int d, u32 v) {
	int nm = (int)stepv<M>(ws, d, S_NMAPPED);
	for (int i = 0; i < nm; i++)
		if (ws.node[pl<M>(ws, P_NODEORDER + i)] == v) return false;
	return true;
}

// freshC is fresh with a candidate's new node counted as mapped.
template <bool M, int F>
__device__ __forceinline__ bool freshC(const WS &ws, const Cur &c, int d, u32 v) {
	int nm = (int)stepv<M>(ws, d, S_NMAPPED);
	for (int i = 0; i < nm; i++)
		if (nodeOf(ws, c, (int)pl<M>(ws, P_NODEORDER + i)) == v) return false;
	return true;
}

__device__ __forceinline__ u64 globalTimer() {
	u64 t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// spend counts n steps of the warp's work (lane 0).
__device__ __forceinline__ void spend(WS &ws, int lane, u64 n) {
	if (lane == 0) ws.steps += n;
}

// overBudget adds the warp's steps to C_STEPS every STEP_FLUSH of them and
// then checks the budget and the deadline, raising C_TRUNC when one is
// passed; it returns (to every lane) whether the warp must stop. Between
// flushes it costs a compare: a warp stops at most STEP_FLUSH steps after
// the budget is passed.
#define STEP_FLUSH 256
template <bool M, int F>
__device__ bool overBudget(const Ctx &x, WS &ws, int lane) {
	if (M || !x.limited) return false;  // mineq*: never limited (gpu/engine_cuda.go)
	int stop = 0;
	if (lane == 0 && ws.steps >= STEP_FLUSH) {
		u64 total = atomicAdd(&x.ctl[C_STEPS], ws.steps) + ws.steps;
		ws.steps = 0;
		if ((x.budget && total > x.budget) || (x.deadline && globalTimer() >= x.deadline)) atomicExch(&x.ctl[C_TRUNC], 1ULL);
		stop = *(volatile u64 *)&x.ctl[C_TRUNC] != 0;
	}
	return __shfl_sync(FULL, stop, 0) != 0;
}

// reserve claims n output records, or reports that the buffer is full.
__device__ bool reserve(const Ctx &x, u32 n, u64 *at) {
	u64 old = *(volatile u64 *)&x.ctl[C_OUTCOUNT];
	while (true) {
		if (old + n > (u64)x.outCap) return false;
		u64 got = atomicCAS(&x.ctl[C_OUTCOUNT], old, old + n);
		if (got == old) { *at = old; return true; }
		old = got;
	}
}

__device__ void lock(u64 *l) {
	while (atomicCAS(l, 0ULL, 1ULL) != 0ULL) __nanosleep(64);
	__threadfence();
}
__device__ void unlock(u64 *l) {
	__threadfence();
	atomicExch(l, 0ULL);
}

// tryLock takes the lock if it is free now (one atomic, none if it is
// seen held).
__device__ __forceinline__ bool tryLock(u64 *l) {
	if (*(volatile u64 *)l != 0ULL || atomicCAS(l, 0ULL, 1ULL) != 0ULL) return false;
	__threadfence();
	return true;
}

// pushCur stores a task for the subtree of step d over [a, b) of the
// given list, the partial match being the shared state overlaid with c
// (one lane). Splits respect splitCap so suspensions always find room.
// A split is optional work-sharing: it gives up when the queue's lock is
// held instead of waiting for it. The queue is one lock-protected stack
// whose push or pop takes microseconds (a task is ~250 bytes written or
// read by one lane between fences): a busy warp that waited for it at
// every split would serialise the whole kernel on the lock while
// thousands of idle warps poll it (issue 16: 3.7 ms calls became 190 ms).
template <bool M, int F>
__device__ bool pushCur(const Ctx &x, const WS &ws, const Cur &c, int d, u32 a, u32 b, i64 openAt, int sel, u32 listNode,
			u32 target, bool split) {
	if (split) {
		if (!tryLock(&x.ctl[C_LOCK])) return false;
	} else {
		lock(&x.ctl[C_LOCK]);
	}
	u64 q = x.ctl[C_QSIZE];
	bool ok = q < (u64)(split ? x.splitCap : x.queueCap);
	if (ok) {
		Task *t = &x.queue[q];
		for (int i = 0; i < MAXK; i++) { t->pos[i] = posOf(ws, c, i); t->tm[i] = tmOf(ws, c, i); }
		for (int i = 0; i < MAXN; i++) t->node[i] = nodeOf(ws, c, i);
		t->openAt = openAt;
		t->d = d; t->a = a; t->b = b;
		t->sel = sel; t->listNode = listNode; t->target = target;
		t->q = qOf<M>(ws);
		__threadfence();
		x.ctl[C_QSIZE] = q + 1;
	}
	unlock(&x.ctl[C_LOCK]);
	return ok;
}

// push stores a task for the subtree of step d over [a, b) of the state's
// own list (lane 0).
template <bool M, int F>
__device__ bool push(const Ctx &x, const WS &ws, int d, u32 a, u32 b, bool split) {
	return pushCur<M, F>(x, ws, noCur(), d, a, b, d > 0 ? OPEN(ws.openAt[d - 1]) : NOTOPEN, ws.sel[d], ws.listNode[d], ws.target[d], split);
}

// idleWaiting: more warps wait for work than the queue holds.
__device__ __forceinline__ bool idleWaiting(const Ctx &x) {
	return *(volatile u64 *)&x.ctl[C_IDLE] > *(volatile u64 *)&x.ctl[C_QSIZE];
}

// pop takes a task if the queue has one and its lock is free: thousands
// of idle warps must not queue up on the lock that busy warps need to
// push (they sleep and try again instead). The task is installed in ws
// straight from the queue (a local copy of it was a 256-byte stack frame)
// and its step returned; -1: none (lane 0).
template <bool M, int F>
__device__ int pop(const Ctx &x, WS &ws) {
	if (*(volatile u64 *)&x.ctl[C_QSIZE] == 0) return -1;
	if (!tryLock(&x.ctl[C_LOCK])) return -1;
	u64 q = x.ctl[C_QSIZE];
	int d = -1;
	if (q > 0) {
		const Task &t = x.queue[q - 1];
		for (int i = 0; i < MAXK; i++) { ws.pos[i] = t.pos[i]; ws.tm[i] = t.tm[i]; }
		for (int i = 0; i < MAXN; i++) ws.node[i] = (u32)t.node[i];
		d = (int)t.d;
		if (d > 0) ws.openAt[d - 1] = t.openAt;
		if (M) setQuery(ws, (int)t.q);
		ws.sel[d] = (int)t.sel; ws.listNode[d] = (u32)t.listNode; ws.target[d] = (u32)t.target;
		ws.a[d] = (u32)t.a; ws.b[d] = (u32)t.b; ws.base[d] = (u32)t.a; ws.mask[d] = 0;
		// A task does not carry the anchor's run: its steps prune nothing
		// on it (the last step still checks the closing edge itself).
		if (F & F_PRUNE) { wx(ws).cfB = MINPOS; wx(ws).clB = I64MAX; }
		x.ctl[C_QSIZE] = q - 1;
	}
	unlock(&x.ctl[C_LOCK]);
	return d;
}

// tailCount counts the last step (nd) of every valid lane's candidate:
// entries of its run [ra, rb) that join the two mapped endpoints (a
// closing edge) or whose new endpoint is not yet mapped. The runs are
// concatenated by a warp prefix sum; each lane takes every 32nd entry of
// the concatenation and finds its owner by a 5-step search over the
// lanes' offsets, so a long run and many short ones cost the same per
// entry and no lane idles while another counts.
template <bool M, int F>
__device__ void tailCount(const Ctx &x, const WS &ws, const Cur &c, int nd, bool valid, u32 ra, u32 rb,
			  const Bounds &bd, i64 until, int lane, u64 *nm, u64 *no) {
	u32 len = valid ? rb - ra : 0;
	const bool both = (int)stepv<M>(ws, nd, S_BIND) == BIND_BOTH;
	const int nmap = (int)stepv<M>(ws, nd, S_NMAPPED);
	// A run past P_SPLITTAIL (a hub's window of edges under a heavy
	// candidate) would hold this warp while others idle: while warps wait,
	// its end is cut into tasks of that length for them (the task's state
	// is the shared one overlaid with this lane's candidate).
	const i64 splitTail = opt(P_SPLITTAIL);
	if (splitTail > 0) {
		u32 hv = __ballot_sync(FULL, len > (u32)splitTail);
		if (hv && idleWaiting(x)) {
			while (hv) {
				int j = __ffs(hv) - 1;
				hv &= hv - 1;
				if (lane == j) {
					while (len > (u32)splitTail && idleWaiting(x)) {
						u32 cut = rb - (u32)splitTail;
						if (!pushCur<M, F>(x, ws, c, nd, cut, rb, until, bd.sel, bd.listNode, bd.target, true)) break;
						atomicAdd(&x.ctl[qOf<M>(ws) * C_SIZE + C_SPLITS], 1ULL);
						rb = cut;
						len = rb - ra;
					}
				}
				__syncwarp();
			}
		}
	}
	u32 off = len;
	for (int o = 1; o < 32; o <<= 1) {
		u32 y = __shfl_up_sync(FULL, off, o);
		if (lane >= o) off += y;
	}
	u32 total = __shfl_sync(FULL, off, 31);
	off -= len;  // exclusive
	u64 cm = 0, co = 0;
	for (u32 base = 0; base < total; base += 32) {
		u32 v = base + lane;
		// owner: the last lane whose offset is <= v (lanes with empty runs
		// share offsets with the next; the search finds the non-empty one).
		int j = 0;
		for (int step = 16; step > 0; step >>= 1) {
			int probe = j + step;
			u32 po = __shfl_sync(FULL, off, probe & 31);
			if (probe < 32 && po <= v) j = probe;
		}
		u32 jra = __shfl_sync(FULL, ra, j), joff = __shfl_sync(FULL, off, j);
		int jsel = __shfl_sync(FULL, bd.sel, j);
		u32 jtarget = __shfl_sync(FULL, bd.target, j);
		int jn1 = __shfl_sync(FULL, c.n1, j), jn2 = __shfl_sync(FULL, c.n2, j), jn3 = __shfl_sync(FULL, c.n3, j);
		u32 jv1 = __shfl_sync(FULL, c.v1, j), jv2 = __shfl_sync(FULL, c.v2, j), jv3 = __shfl_sync(FULL, c.v3, j);
		int jn4 = -1;
		u32 jv4 = 0;
		if (F & F_EXP2) { jn4 = __shfl_sync(FULL, c.n4, j); jv4 = __shfl_sync(FULL, c.v4, j); }
		i64 juntil = OPEN(__shfl_sync(FULL, until, j));
		if (v < total) {
			u32 o = selOther(x.w, jsel)[jra + (v - joff)];
			bool ok;
			if (both) {
				ok = o == jtarget;  // a scanned list's run (pair runs are counted above)
			} else {
				ok = true;
				for (int i = 0; i < nmap; i++) {
					int n = (int)pl<M>(ws, P_NODEORDER + i);
					u32 m = n == jn1 ? jv1 : (n == jn2 ? jv2 : (n == jn3 ? jv3 : ((F & F_EXP2) && n == jn4 ? jv4 : ws.node[n])));
					if (m == o) ok = false;
				}
			}
			if (ok) {
				if (juntil != NOTOPEN) co++; else cm++;
			}
		}
	}
	*nm += cm;
	*no += co;
}

// checks applies step d's predicates and anti-edges to candidate c,
// raising *until to the latest open anti-edge interval. Builds without
// F_CHECKS have neither (nor the match output): the plans of the built-in
// motifs in count mode run code about 30% shorter, and ncu found half of
// the long walks' stalls waiting on instruction fetch (BENCHMARKS.md).
template <bool M, int F>
__device__ __forceinline__ bool checks(const Ctx &x, const WS &ws, const Cur &c, int d, i64 *until) {
	if (!(F & F_CHECKS)) return true;
	bool valid = true;
	i64 pm = stepv<M>(ws, d, S_PREDMASK);
	for (int pi = 0; valid && pm; pi++, pm >>= 1)
		if (pm & 1) valid = holds<M, F>(x, ws, c, pi);
	i64 am = stepv<M>(ws, d, S_ANTIMASK);
	for (int ai = 0; valid && am; ai++, am >>= 1)
		if (am & 1) {
			i64 u = NOTOPEN;
			valid = anti<M, F>(x, ws, c, ai, &u);
			*until = max(*until, u);
		}
	return valid;
}

// ownerAt is the partial match of lane j's candidate of step d's current
// chunk (entry ws.base[d] + j, the Cur evaluate built for it), rebuilt from
// the window's columns (ok: j's candidate is valid; else none): expand2
// reads its owners' so instead of holding their Cur in registers.
template <bool M>
__device__ __forceinline__ Cur ownerAt(const Ctx &x, const WS &ws, int d, int j, bool ok) {
	Cur c = noCur();
	c.edge = (int)stepv<M>(ws, d, S_EDGE);
	if (!ok) return c;
	const u32 idx = ws.base[d] + j;
	if (d == 0) {
		const i64 p = x.rootLo + idx, s = p - x.w.base;
		c.pos = p; c.t = x.w.t[s];
		c.n1 = (int)stepv<M>(ws, 0, S_FROM); c.v1 = x.w.src[s];
		c.n2 = (int)stepv<M>(ws, 0, S_TO); c.v2 = x.w.dst[s];
	} else {
		const int sel = ws.sel[d];
		c.pos = selPos(x.w, sel)[idx]; c.t = selT(x.w, sel)[idx];
		if ((int)stepv<M>(ws, d, S_BIND) != BIND_BOTH) {
			c.n1 = (int)stepv<M>(ws, d, S_NEWNODE); c.v1 = selOther(x.w, sel)[idx];
		}
	}
	return c;
}

// survivorAt is expand2's gathered survivor j of step nd - 1 (its entry
// j of the warp's GB: owner lane and list index) over its owner's partial
// match (ownerAt, step nd - 2) as the Cur outerCand built for it (ok: a
// survivor; else none), rebuilt from the window's columns: expand's inner
// level (L = 1) reads its owners' so instead of holding their Cur in
// registers across its sweep.
template <bool M, int F>
__device__ __forceinline__ Cur survivorAt(const Ctx &x, WS &ws, int nd, int j, bool ok) {
	const GB &g = gb<F>(ws);
	const int oj = ok ? g.j[j] : 0;
	Cur c = ownerAt<M>(x, ws, nd - 2, oj, ok);
	c.edge2 = (int)stepv<M>(ws, nd - 1, S_EDGE);
	if (!ok) return c;
	const u32 idx = g.idx[j];
	const int sel = ws.rsel[nd - 1][oj];
	c.pos2 = selPos(x.w, sel)[idx];
	c.t2 = selT(x.w, sel)[idx];
	if ((int)stepv<M>(ws, nd - 1, S_BIND) != BIND_BOTH) {
		c.n3 = (int)stepv<M>(ws, nd - 1, S_NEWNODE);
		c.v3 = selOther(x.w, sel)[idx];
	}
	return c;
}

// ownerOf is the partial match of lane j's owner for expand at step nd:
// L = 0, lane j's c (every lane shuffles); L = 1, expand2's survivor j
// (survivorAt; c unused).
template <bool M, int F, int L>
__device__ __forceinline__ Cur ownerOf(const Ctx &x, WS &ws, const Cur &c, int nd, int j, bool ok) {
	if (L) return survivorAt<M, F>(x, ws, nd, j, ok);
	return ownerCur(c, j);
}

// expandOne finishes, for the candidates ok of step nd (the one above the
// counted last step) that the lanes hold, what expand starts: lane i's
// candidate is entry idx of the list of its owner lane j's run (the owner's
// partial match c, shuffled: the owner's step is not bound in ws); it is
// checked (predicates, anti-edges), its last-step run found and the warp
// counts those runs together. Every lane takes part (shuffles). L = 1:
// expand2's inner level, the owner its survivor j (ownerOf; c unused).
template <bool M, int F, int L>
__device__ void expandOne(const Ctx &x, WS &ws, const Cur &c, int nd, int j, u32 idx, bool ok, const Bounds &bd,
			  i64 until, int lane, u64 *nm, u64 *no) {
	const int e2 = (int)stepv<M>(ws, nd, S_EDGE);
	const bool both = (int)stepv<M>(ws, nd, S_BIND) == BIND_BOTH;
	Cur cc = ownerOf<M, F, L>(x, ws, c, nd, j, ok);
	const int jsel = __shfl_sync(FULL, bd.sel, j);
	i64 u2 = OPEN(__shfl_sync(FULL, until, j));
	if (ok) {
		addCand<L>(cc, e2, selPos(x.w, jsel)[idx], selT(x.w, jsel)[idx]);
		if (!both) addNode<L>(cc, (int)stepv<M>(ws, nd, S_NEWNODE), selOther(x.w, jsel)[idx]);
		ok = checks<M, F>(x, ws, cc, nd, &u2);
	}
	Bounds b2;
	b2.sel = 0; b2.target = 0; b2.listNode = 0; b2.lo = 0; b2.hi = 0;
	b2.lowPos = 0; b2.hiPos = 0; b2.lowT = 0; b2.hiT = 0;
	u32 ra2 = 0, rb2 = 0;
	if (ok) {
		if (!stepBounds<M, F>(x, ws, cc, nd + 1, &b2)) {
			ok = false;
		} else {
			SEARCH(F, x, ws, b2, &ra2, &rb2);
			ok = ra2 < rb2;
		}
	}
	spend(ws, lane, __popc(__ballot_sync(FULL, ok)));  // a run tallied per candidate
	tailCount<M, F>(x, ws, cc, nd + 1, ok, ra2, rb2, b2, u2, lane, nm, no);
}

// expandGather is expand in a build with F_COMPACT: each lane takes every
// 32nd candidate with its owner's partial match, filters it (the closing
// edge's endpoint, injectivity, the closing-edge pruning) and expandOne
// finishes the survivors. With P_COMPACT the survivors are first gathered
// 32 at a time (their owner lane and list index in ws.xj/ws.xidx) so that
// expandOne, whose last-step search and counting sweep cost the same for 1
// valid lane as for 32, runs on full warps: a closing step keeps few of its
// candidates (M12's on a 10M-edge graph: 1 in 17).
template <bool M, int F, int L>
__device__ void expandGather(const Ctx &x, WS &ws, const Cur &c, int nd, bool ex, u32 ra, u32 rb, const Bounds &bd, i64 until,
		       i64 ccf, i64 ccl, int lane, u64 *nm, u64 *no) {
	u32 len = ex ? rb - ra : 0;
	u32 off = len;
	for (int o = 1; o < 32; o <<= 1) {
		u32 y = __shfl_up_sync(FULL, off, o);
		if (lane >= o) off += y;
	}
	const u32 total = __shfl_sync(FULL, off, 31);
	off -= len;
	const bool both = (int)stepv<M>(ws, nd, S_BIND) == BIND_BOTH;
	const int ccode = (F & F_PRUNE) ? (int)stepv<M>(ws, nd, S_CLOSE) : 0;
	const bool compact = opt(P_COMPACT) != 0;
	// One expandOne call site (each carries tailCount: inlined at several
	// sites the kernel's code and spills grow, as evaluate's did). compact:
	// survivors gathered in slots [0, pn) of ws.xj/xidx (up to 63: a batch
	// is added whole), the first 32 expanded once there are 32, the rest
	// moved down; at the end the remainder. Otherwise each batch as it is.
	u32 base = 0;
	int pn = 0;
	while (base < total || pn > 0) {
		int pj = 0;
		u32 pidx = 0;
		bool pv = false, run = true;
		if (base < total) {
			// Spent a batch at a time, so a warp passes the budget by at
			// most a flush, as the depth-first walk does.
			spend(ws, lane, min(total - base, 32u));
			if (overBudget<M, F>(x, ws, lane)) return;
			u32 v = base + lane;
			base += 32;
			int j = 0;
			for (int step = 16; step > 0; step >>= 1) {
				int probe = j + step;
				u32 po = __shfl_sync(FULL, off, probe & 31);
				if (probe < 32 && po <= v) j = probe;
			}
			u32 jra = __shfl_sync(FULL, ra, j), joff = __shfl_sync(FULL, off, j);
			int jsel = __shfl_sync(FULL, bd.sel, j);
			u32 jtarget = __shfl_sync(FULL, bd.target, j);
			i64 jcf = 0, jcl = 0;
			if (ccode >= 2) {
				if (L) {
					// expand2's survivor's anchor run, passed in.
					jcf = __shfl_sync(FULL, ccf, j);
					jcl = __shfl_sync(FULL, ccl, j);
				} else {
					// The owner's anchor run: its own (the owner's step maps
					// the anchor) or the bound one's.
					const bool own = stepv<M>(ws, nd - 1, S_CLOSE) == 1;
					jcf = own ? wx(ws).cfirst[j] : wx(ws).cfB;
					jcl = own ? wx(ws).clast[j] : wx(ws).clB;
				}
			}
			Cur cc = noCur();
			if (L) {
				cc = survivorAt<M, F>(x, ws, nd, j, v < total);
			} else if (!both) {
				cc.edge = c.edge;
				cc.n1 = __shfl_sync(FULL, c.n1, j); cc.v1 = __shfl_sync(FULL, c.v1, j);
				cc.n2 = __shfl_sync(FULL, c.n2, j); cc.v2 = __shfl_sync(FULL, c.v2, j);
			}
			bool ok = v < total;
			u32 idx = 0;
			if (ok) {
				idx = jra + (v - joff);
				u32 other = selOther(x.w, jsel)[idx];
				if (both) {
					ok = other == jtarget;
				} else {
					ok = freshC<M, F>(ws, cc, nd, other);
				}
				if (ok && ccode >= 2) ok = closeOk(ccode, selPos(x.w, jsel)[idx], jcf, jcl);
			}
			if (!compact) {
				pj = j;
				pidx = idx;
				pv = ok;
			} else {
				const u32 bal = __ballot_sync(FULL, ok);
				if (ok) {
					const int at = pn + __popc(bal & ((1u << lane) - 1));
					wx(ws).xj[at] = (unsigned char)j;
					wx(ws).xidx[at] = idx;
				}
				pn += __popc(bal);
				__syncwarp();
				run = pn >= 32;
				if (run) {
					pj = wx(ws).xj[lane];
					pidx = wx(ws).xidx[lane];
					pv = true;
				}
			}
		} else {
			pv = lane < pn;
			pj = pv ? wx(ws).xj[lane] : 0;
			pidx = pv ? wx(ws).xidx[lane] : 0;
		}
		if (!run) continue;
		expandOne<M, F, L>(x, ws, c, nd, pj, pidx, pv, bd, until, lane, nm, no);
		if (compact) {
			const int rem = max(pn - 32, 0);
			u32 mi = 0;
			unsigned char mj = 0;
			__syncwarp();
			if (lane < rem) { mi = wx(ws).xidx[32 + lane]; mj = wx(ws).xj[32 + lane]; }
			__syncwarp();
			if (lane < rem) { wx(ws).xidx[lane] = mi; wx(ws).xj[lane] = mj; }
			__syncwarp();
			pn = rem;
		}
	}
}

// expand evaluates step nd (the one above the counted last step) for the
// runs [ra, rb) of every lane with ex set, all at once: the runs are
// concatenated as tailCount concatenates the last step's, each lane takes
// every 32nd candidate with its owner's partial match (c, shuffled: the
// owner's step is not bound in ws), checks it, finds its last-step run and
// the warp counts those runs together. A warp whose chunk has short runs
// (most roots of a window with few matches per root) so keeps its lanes
// busy instead of binding one candidate at a time. A build with F_COMPACT
// gathers the survivors first (expandGather); without it, the closing-edge
// pruning (F_PRUNE) is one more filter here. L = 1: expand2's inner level,
// each lane's partial match expand2's survivor of its GB (survivorAt: c
// unused) and ccf/ccl its anchor run (F_PRUNE); L = 0: c one step, ccf/ccl
// unused.
template <bool M, int F, int L>
__device__ void expand(const Ctx &x, WS &ws, const Cur &c, int nd, bool ex, u32 ra, u32 rb, const Bounds &bd, i64 until,
		       i64 ccf, i64 ccl, int lane, u64 *nm, u64 *no) {
	if (F & F_COMPACT) {
		expandGather<M, F, L>(x, ws, c, nd, ex, ra, rb, bd, until, ccf, ccl, lane, nm, no);
		return;
	}
	u32 len = ex ? rb - ra : 0;
	u32 off = len;
	for (int o = 1; o < 32; o <<= 1) {
		u32 y = __shfl_up_sync(FULL, off, o);
		if (lane >= o) off += y;
	}
	const u32 total = __shfl_sync(FULL, off, 31);
	off -= len;
	const int e2 = (int)stepv<M>(ws, nd, S_EDGE);
	const bool both = (int)stepv<M>(ws, nd, S_BIND) == BIND_BOTH;
	const int nn = (int)stepv<M>(ws, nd, S_NEWNODE);
	const int ccode = (F & F_PRUNE) ? (int)stepv<M>(ws, nd, S_CLOSE) : 0;
	for (u32 base = 0; base < total; base += 32) {
		// Spent a batch at a time, so a warp passes the budget by at most a
		// flush, as the depth-first walk does.
		spend(ws, lane, min(total - base, 32u));
		if (overBudget<M, F>(x, ws, lane)) return;
		u32 v = base + lane;
		int j = 0;
		for (int step = 16; step > 0; step >>= 1) {
			int probe = j + step;
			u32 po = __shfl_sync(FULL, off, probe & 31);
			if (probe < 32 && po <= v) j = probe;
		}
		Cur cc = ownerOf<M, F, L>(x, ws, c, nd, j, v < total);
		u32 jra = __shfl_sync(FULL, ra, j), joff = __shfl_sync(FULL, off, j);
		int jsel = __shfl_sync(FULL, bd.sel, j);
		u32 jtarget = __shfl_sync(FULL, bd.target, j);
		i64 u2 = OPEN(__shfl_sync(FULL, until, j));
		i64 jcf = 0, jcl = 0;
		if (L && ccode >= 2) {
			jcf = __shfl_sync(FULL, ccf, j);
			jcl = __shfl_sync(FULL, ccl, j);
		}
		bool ok = v < total;
		if (ok) {
			u32 idx = jra + (v - joff);
			u32 other = selOther(x.w, jsel)[idx];
			const i64 p2 = selPos(x.w, jsel)[idx];
			addCand<L>(cc, e2, p2, selT(x.w, jsel)[idx]);
			if (both) {
				ok = other == jtarget;
			} else {
				ok = freshC<M, F>(ws, cc, nd, other);
				addNode<L>(cc, nn, other);
			}
			if (ok && ccode >= 2) {
				if (L) {
					ok = closeOk(ccode, p2, jcf, jcl);
				} else {
					// The owner's anchor run: its own (the owner's step maps
					// the anchor) or the bound one's.
					const bool own = stepv<M>(ws, nd - 1, S_CLOSE) == 1;
					ok = closeOk(ccode, p2, own ? wx(ws).cfirst[j] : wx(ws).cfB, own ? wx(ws).clast[j] : wx(ws).clB);
				}
			}
		}
		if (ok) ok = checks<M, F>(x, ws, cc, nd, &u2);
		Bounds b2;
		b2.sel = 0; b2.target = 0; b2.listNode = 0; b2.lo = 0; b2.hi = 0;
		b2.lowPos = 0; b2.hiPos = 0; b2.lowT = 0; b2.hiT = 0;
		u32 ra2 = 0, rb2 = 0;
		if (ok) {
			if (!stepBounds<M, F>(x, ws, cc, nd + 1, &b2)) {
				ok = false;
			} else {
				SEARCH(F, x, ws, b2, &ra2, &rb2);
				ok = ra2 < rb2;
			}
		}
		spend(ws, lane, __popc(__ballot_sync(FULL, ok)));  // a run tallied per candidate
		tailCount<M, F>(x, ws, cc, nd + 1, ok, ra2, rb2, b2, u2, lane, nm, no);
	}
}

// outerCand makes entry idx of owner lane j's run (list jsel) at step nd,
// expand2's outer step, a Cur over the owner's partial match (cc, from
// ownerAt) and, with filter, checks what expand checks (the closing
// edge's other endpoint, injectivity, the closing-edge pruning against the
// anchor run cf/cl); then the predicates and anti-edges (raising *u2), and
// when the step maps the anchor, its run (cf/cl). Without filter it
// rebuilds a survivor: those checks passed, the rest is recomputed for u2
// and cf/cl (deterministic).
template <bool M, int F>
__device__ __forceinline__ bool outerCand(const Ctx &x, const WS &ws, Cur &cc, int nd, bool ok, u32 idx, int jsel, u32 jtarget,
					  bool filter, i64 *u2, i64 *cf, i64 *cl) {
	if (!ok) return false;
	const bool both = (int)stepv<M>(ws, nd, S_BIND) == BIND_BOTH;
	const int ccode = (F & F_PRUNE) ? (int)stepv<M>(ws, nd, S_CLOSE) : 0;
	u32 other = selOther(x.w, jsel)[idx];
	const i64 p2 = selPos(x.w, jsel)[idx];
	addCand<0>(cc, (int)stepv<M>(ws, nd, S_EDGE), p2, selT(x.w, jsel)[idx]);
	if (filter) ok = both ? other == jtarget : freshC<M, F>(ws, cc, nd, other);
	if (!both) addNode<0>(cc, (int)stepv<M>(ws, nd, S_NEWNODE), other);
	if (ok && filter && ccode >= 2) ok = closeOk(ccode, p2, *cf, *cl);
	if (ok) ok = checks<M, F>(x, ws, cc, nd, u2);
	if (ok && ccode == 1) ok = closeRun<M, F>(x, ws, cc, cf, cl);
	return ok;
}

// expand2 evaluates step nd, two above the counted last step, for the
// runs [ra, rb) of every lane with ex set, all at once (F_EXP2): the runs
// are concatenated as expand's are, each lane takes every 32nd candidate
// with its owner's partial match, checks it and finds its next-step run;
// the candidates with a non-empty run are gathered 32 at a time (owner
// lane, list index and run in the warp's GB) and expand takes the next
// step of all of them at once (L = 1), counting the last. The depth-first
// walk would bind each candidate of this step in turn and evaluate its
// next step's few candidates on a warp with most lanes idle (M13 on a
// 10M-edge graph: ~2.4 candidates per chunk). The owners' partial matches
// (ownerAt), runs, bounds and open ends (ws.ra/rsel/rtarget/until, which
// evaluate stores first in these builds) and the survivors' (survivorAt)
// are read back rather than held in registers across the two levels: the
// build spilled 568/784 bytes (stores/loads) with them held, 126/168
// without (mine6px: 644/1024, 204/288; ptxas -v, CUDA 11.8).
template <bool M, int F>
__device__ void expand2(const Ctx &x, WS &ws, int nd, bool ex, u32 ra, u32 rb, int lane, u64 *nm, u64 *no) {
	GB &g = gb<F>(ws);
	u32 len = ex ? rb - ra : 0;
	u32 off = len;
	for (int o = 1; o < 32; o <<= 1) {
		u32 y = __shfl_up_sync(FULL, off, o);
		if (lane >= o) off += y;
	}
	const u32 total = __shfl_sync(FULL, off, 31);
	g.off[lane] = off - len;
	__syncwarp();
	const int ccode = (F & F_PRUNE) ? (int)stepv<M>(ws, nd, S_CLOSE) : 0;
	const bool own = (F & F_PRUNE) && stepv<M>(ws, nd - 1, S_CLOSE) == 1;
	u32 base = 0;
	int pn = 0;
	while (base < total || pn > 0) {
		if (base < total) {
			spend(ws, lane, min(total - base, 32u));
			if (overBudget<M, F>(x, ws, lane)) return;
			const u32 v = base + lane;
			base += 32;
			int j = 0;
			for (int step = 16; step > 0; step >>= 1) {
				int probe = j + step;
				if (probe < 32 && g.off[probe] <= v) j = probe;
			}
			Cur cc = ownerAt<M>(x, ws, nd - 1, j, v < total);
			// The owner's run, bounds and open end, as evaluate stored them
			// (from shared memory: not live in registers across the walk).
			const u32 jra = ws.ra[nd][j], joff = g.off[j];
			const int jsel = ws.rsel[nd][j];
			const u32 jtarget = ws.rtarget[nd][j];
			i64 u2 = OPEN(ws.until[nd - 1][j]);
			i64 cf = MINPOS, cl = I64MAX;
			if (F & F_PRUNE) {
				cf = own ? wx(ws).cfirst[j] : wx(ws).cfB;
				cl = own ? wx(ws).clast[j] : wx(ws).clB;
			}
			const u32 idx = jra + (v - joff);
			bool ok = outerCand<M, F>(x, ws, cc, nd, v < total, idx, jsel, jtarget, true, &u2, &cf, &cl);
			u32 ra2 = 0, rb2 = 0;
			if (ok) {
				Bounds b2;
				if (!stepBounds<M, F>(x, ws, cc, nd + 1, &b2)) {
					ok = false;
				} else {
					SEARCH(F, x, ws, b2, &ra2, &rb2);
					ok = ra2 < rb2;
				}
			}
			const u32 bal = __ballot_sync(FULL, ok);
			if (ok) {
				const int at = pn + __popc(bal & ((1u << lane) - 1));
				g.j[at] = (unsigned char)j;
				g.idx[at] = idx;
				g.ra[at] = ra2;
				g.rb[at] = rb2;
			}
			pn += __popc(bal);
			__syncwarp();
			if (pn < 32) continue;
		}
		// The first 32 survivors (or the rest, at the end), rebuilt and
		// expanded one level further together.
		const bool pv = lane < pn;
		const int pj = pv ? g.j[lane] : 0;
		const u32 pidx = pv ? g.idx[lane] : 0, pra = pv ? g.ra[lane] : 0, prb = pv ? g.rb[lane] : 0;
		Cur cc = ownerAt<M>(x, ws, nd - 1, pj, pv);
		const int jsel = ws.rsel[nd][pj];
		i64 u2 = OPEN(ws.until[nd - 1][pj]);
		i64 cf = MINPOS, cl = I64MAX;
		if (F & F_PRUNE) {
			cf = own ? wx(ws).cfirst[pj] : wx(ws).cfB;
			cl = own ? wx(ws).clast[pj] : wx(ws).clB;
		}
		bool ok = outerCand<M, F>(x, ws, cc, nd, pv, pidx, jsel, 0, false, &u2, &cf, &cl);
		Bounds b2;
		b2.sel = 0; b2.target = 0; b2.listNode = 0; b2.lo = 0; b2.hi = 0;
		b2.lowPos = 0; b2.hiPos = 0; b2.lowT = 0; b2.hiT = 0;
		if (ok) ok = stepBounds<M, F>(x, ws, cc, nd + 1, &b2);
		expand<M, F, 1>(x, ws, cc, nd + 1, ok, pra, prb, b2, u2, cf, cl, lane, nm, no);
		const int rem = max(pn - 32, 0);
		u32 mi = 0, mra = 0, mrb = 0;
		unsigned char mj = 0;
		__syncwarp();
		if (lane < rem) { mi = g.idx[32 + lane]; mj = g.j[32 + lane]; mra = g.ra[32 + lane]; mrb = g.rb[32 + lane]; }
		__syncwarp();
		if (lane < rem) { g.idx[lane] = mi; g.j[lane] = mj; g.ra[lane] = mra; g.rb[lane] = mrb; }
		__syncwarp();
		pn = rem;
	}
}

// evaluate checks the current 32-candidate chunk of step d. At the last
// step it counts or writes the matches; otherwise it records the valid
// candidates in ws.mask[d]. Returns false when the output buffer is full
// (enumerate mode): the caller suspends.
template <bool M, int F>
__device__ bool evaluate(const Ctx &x, WS &ws, int d, int lane, u64 *nm, u64 *no) {
	const Win &w = x.w;
	const int k = (int)pl<M>(ws, P_K);
	u32 idx = ws.base[d] + lane;
	bool valid = idx < ws.b[d];
	spend(ws, lane, min(ws.b[d] - ws.base[d], 32u));
	Cur c = noCur();
	c.edge = (int)stepv<M>(ws, d, S_EDGE);
	i64 until = d > 0 ? OPEN(ws.openAt[d - 1]) : NOTOPEN;
	if (valid) {
		if (d == 0) {
			i64 p = x.rootLo + idx;
			i64 s = p - w.base;
			u32 u = w.src[s], v = w.dst[s];
			c.pos = p; c.t = w.t[s];
			c.n1 = (int)stepv<M>(ws, 0, S_FROM); c.v1 = u;
			c.n2 = (int)stepv<M>(ws, 0, S_TO); c.v2 = v;
			valid = u != v && (x.rootMask == 0 || x.rootMask[idx]);
		} else {
			int sel = ws.sel[d];
			const i64 *T = selT(w, sel);
			const i64 *Pos = selPos(w, sel);
			const u32 *O = selOther(w, sel);
			u32 other = O[idx];
			c.pos = Pos[idx]; c.t = T[idx];
			if ((int)stepv<M>(ws, d, S_BIND) == BIND_BOTH) {
				valid = other == ws.target[d];
			} else {
				valid = fresh<M, F>(ws, d, other);
				c.n1 = (int)stepv<M>(ws, d, S_NEWNODE); c.v1 = other;
			}
		}
	}
	if (valid) valid = checks<M, F>(x, ws, c, d, &until);
	// Closing-edge pruning (P_CLOSE): the anchor step finds each
	// candidate's run of possible closing edges; the steps between check
	// that it still holds one in their candidate's bounds.
	const int ccode = (F & F_PRUNE) ? (int)stepv<M>(ws, d, S_CLOSE) : 0;
	if (ccode == 1) {
		i64 cf = MINPOS, clst = I64MAX;
		if (valid) valid = closeRun<M, F>(x, ws, c, &cf, &clst);
		wx(ws).cfirst[lane] = cf;
		wx(ws).clast[lane] = clst;
	} else if (ccode >= 2) {
		if (valid) valid = closeOk(ccode, c.pos, wx(ws).cfB, wx(ws).clB);
	}
	u32 bal = __ballot_sync(FULL, valid);
	if (d == k - 1) {
		if (M || !(F & F_CHECKS) || !x.enumerate) {  // mineq* and builds without F_CHECKS: count mode only
			if (valid) {
				if (until != NOTOPEN) (*no)++; else (*nm)++;
			}
			return true;
		}
		u32 n = __popc(bal);
		if (n == 0) return true;
		u64 at = 0;
		int ok = 1;
		if (lane == 0) ok = reserve(x, n, &at);
		ok = __shfl_sync(FULL, ok, 0);
		if (!ok) return false;
		at = __shfl_sync(FULL, at, 0);
		if (valid) {
			u64 r = at + __popc(bal & ((1u << lane) - 1));
			i64 *rec = x.out + r * REC;
			for (int e = 0; e < k; e++) rec[e] = posOf(ws, c, e);
			rec[MAXK] = until;
			if (until != NOTOPEN) (*no)++; else (*nm)++;
		}
		return true;
	}
	// The next step's run for every valid candidate at once, each lane
	// searching its own (32 searches in flight instead of one after
	// another). A candidate with an empty run is dropped here, before
	// anything binds it.
	const int nd = d + 1;
	Bounds bd;
	bd.sel = 0; bd.target = 0; bd.listNode = 0; bd.lo = 0; bd.hi = 0;
	bd.lowPos = 0; bd.hiPos = 0; bd.lowT = 0; bd.hiT = 0;
	u32 ra = 0, rb = 0;
	if (valid) {
		if (!stepBounds<M, F>(x, ws, c, nd, &bd)) {
			valid = false;
		} else {
			SEARCH(F, x, ws, bd, &ra, &rb);
			valid = ra < rb;
		}
	}
	if ((F & F_PRESCAN) && (nd < k - 2 || pl<M>(ws, P_TALLY) == 0) && pl<M>(ws, P_PRESCAN) > 0) {
		// A closing step the walk takes depth-first: its run (the shorter
		// list's entries in the bounds) mostly holds edges to other nodes,
		// often none to the target, and each candidate's run would cost
		// the warp a chunk of its own whose lanes mostly fail. A short
		// run is scanned here by its own lane and cut to the span from its
		// first to its last edge to the target: a run with none is dropped.
		if (valid && bd.target != 0xffffffffu && rb - ra <= (u32)pl<M>(ws, P_PRESCAN)) {
			const u32 *O = selOther(w, bd.sel);
			u32 first = rb, last = ra;
			for (u32 i = ra; i < rb; i++) {
				if (O[i] == bd.target) {
					first = min(first, i);
					last = i + 1;
				}
			}
			ra = first;
			rb = last;
			valid = ra < rb;
		}
	}
	if (nd == k - 1 && pl<M>(ws, P_TALLY) != 0) {
		spend(ws, lane, __popc(__ballot_sync(FULL, valid)));  // a run tallied per candidate
		// Tail expansion: the last step's runs of all candidates are
		// counted together, the warp sweeping their concatenation 32
		// entries at a time whatever their lengths.
		tailCount<M, F>(x, ws, c, nd, valid, ra, rb, bd, until, lane, nm, no);
		valid = false;
	}
	// The candidates' runs of step nd, for the depth-first walk (and, in
	// the builds with expand2, for it first: it reads its owners' runs
	// from here, and ra/rb are reloaded after it rather than held).
	const bool early = (F & F_EXP2) != 0;
	if (early) {
		if (F & F_CHECKS) ws.until[d][lane] = until;
		ws.ra[nd][lane] = ra;
		ws.rb[nd][lane] = rb;
		ws.rsel[nd][lane] = (unsigned char)bd.sel;
		ws.rtarget[nd][lane] = bd.target;
		ws.rnode[nd][lane] = bd.listNode;
		__syncwarp();
	}
	if (nd == k - 2 && pl<M>(ws, P_TALLY) != 0 && opt(P_EXPAND) > 0) {
		// Short runs of the step above the counted last one are expanded
		// across lanes here; long ones stay for the depth-first walk,
		// which hands their halves to idle warps.
		bool ex = valid && rb - ra <= (u32)opt(P_EXPAND);
		if (__any_sync(FULL, ex)) expand<M, F, 0>(x, ws, c, nd, ex, ra, rb, bd, until, 0, 0, lane, nm, no);
		if (ex) valid = false;
	}
	if ((F & F_EXP2) && nd == k - 3 && pl<M>(ws, P_TALLY) != 0 && pl<M>(ws, P_EXPAND2) > 0) {
		// Short runs of the step two above the counted last one: that step
		// and the next across lanes (expand2), the last counted.
		bool ex = valid && rb - ra <= (u32)pl<M>(ws, P_EXPAND2);
		if (__any_sync(FULL, ex)) {
			expand2<M, F>(x, ws, nd, ex, ra, rb, lane, nm, no);
			ra = *(volatile u32 *)&ws.ra[nd][lane];
			rb = *(volatile u32 *)&ws.rb[nd][lane];
		}
		if (ex) valid = false;
	}
	if (!early) {
		if (F & F_CHECKS) ws.until[d][lane] = until;
		ws.ra[nd][lane] = ra;
		ws.rb[nd][lane] = rb;
		ws.rsel[nd][lane] = (unsigned char)bd.sel;
		ws.rtarget[nd][lane] = bd.target;
		ws.rnode[nd][lane] = bd.listNode;
	}
	bal = __ballot_sync(FULL, valid);
	const i64 splitRun = opt(P_SPLITRUN);
	u32 heavy = __ballot_sync(FULL, valid && splitRun > 0 && rb - ra >= (u64)splitRun);
	if (lane == 0) { ws.mask[d] = bal; ws.heavy[d] = heavy; }
	__syncwarp();
	return true;
}

// tally counts the last step's matches without visiting them (count mode,
// no checks at the last step): candidates in the run minus those whose new
// endpoint is already mapped; for a closing edge, those joining the two
// mapped endpoints.
template <bool M, int F>
__device__ void tally(const Ctx &x, const WS &ws, int d, int sel, u32 a, u32 b, u32 listNode, u32 target, int lane, u64 *nm, u64 *no) {
	const u32 *O = selOther(x.w, sel);
	bool both = (int)stepv<M>(ws, d, S_BIND) == BIND_BOTH;
	u64 n = 0;
	for (u32 i = a + lane; i < b; i += 32) {
		u32 o = O[i];
		if (both) n += o == target;
		else n += fresh<M, F>(ws, d, o);
	}
	if (OPEN(ws.openAt[d - 1]) != NOTOPEN) *no += n; else *nm += n;
}

// bind writes candidate bit of step d's current chunk into the state.
template <bool M, int F>
__device__ void bind(const Ctx &x, WS &ws, int d, int bit) {
	const Win &w = x.w;
	u32 idx = ws.base[d] + bit;
	int e = (int)stepv<M>(ws, d, S_EDGE);
	if (d == 0) {
		i64 p = x.rootLo + idx, s = p - w.base;
		ws.pos[e] = p; ws.tm[e] = w.t[s];
		ws.node[stepv<M>(ws, 0, S_FROM)] = w.src[s];
		ws.node[stepv<M>(ws, 0, S_TO)] = w.dst[s];
	} else {
		int sel = ws.sel[d];
		ws.pos[e] = selPos(w, sel)[idx];
		ws.tm[e] = selT(w, sel)[idx];
		int nn = (int)stepv<M>(ws, d, S_NEWNODE);
		if (nn >= 0) ws.node[nn] = selOther(w, sel)[idx];
	}
	if (F & F_CHECKS) ws.openAt[d] = ws.until[d][bit];
	ws.cur[d] = bit;
	if ((F & F_PRUNE) && stepv<M>(ws, d, S_CLOSE) == 1) {
		wx(ws).cfB = wx(ws).cfirst[bit];
		wx(ws).clB = wx(ws).clast[bit];
	}
}

// suspend saves the unfinished part of the search as tasks: at the last
// step the chunk that could not be written, at each shallower step the
// candidates after the one being explored. Lane 0.
template <bool M, int F>
__device__ void suspend(const Ctx &x, const WS &ws, int d, int d0) {
	push<M, F>(x, ws, d, ws.base[d], ws.b[d], false);
	for (int l = d - 1; l >= d0; l--) {
		u32 from = ws.base[l] + ws.cur[l] + 1;
		if (from < ws.b[l]) push<M, F>(x, ws, l, from, ws.b[l], false);
	}
}

// dfs explores the subtree installed at step d0, evaluating its first
// chunk first. Returns false if it suspended on a full output buffer.
//
// evaluate has one call site, at the top of the loop (a chunk installed by
// advancing or descending sets pending): inlined at three sites, each
// carrying tailCount and expand, it doubled the kernel's code and its
// spills (BENCHMARKS.md, issue 16, "Why the hot path got heavier").
template <bool M, int F>
__device__ bool dfs(const Ctx &x, WS &ws, int d0, int lane, u64 *nm, u64 *no) {
	const int k = (int)pl<M>(ws, P_K);
	const bool tallyLast = pl<M>(ws, P_TALLY) != 0;
	int d = d0;
	bool pending = true;  // ws's chunk at d is installed, not yet evaluated
	while (true) {
		if (pending) {
			pending = false;
			if (!evaluate<M, F>(x, ws, d, lane, nm, no)) {
				if (lane == 0) suspend<M, F>(x, ws, d, d0);
				__syncwarp();
				return false;
			}
		}
		// Past the budget the subtree is abandoned (reported done): the
		// call is truncated, and mineBody claims no more work.
		if (overBudget<M, F>(x, ws, lane)) return true;
		u32 m = ws.mask[d];
		if (d == k - 1 || m == 0) {
			u32 nb = ws.base[d] + 32;
			if (nb >= ws.b[d]) {
				if (d == d0) return true;
				d--;
				continue;
			}
			// Feed idle warps: hand the second half of what remains of a
			// long run to the queue (not at the last step: its chunks are
			// independent leaves, cheap to finish here).
			if (d < k - 1 && d > 0 && ws.b[d] - nb >= 64 && idleWaiting(x)) {
				u32 mid = nb + (((ws.b[d] - nb) / 2 + 31) & ~31u);
				if (mid < ws.b[d]) {
					int ok = 0;
					if (lane == 0) {
						ok = push<M, F>(x, ws, d, mid, ws.b[d], true);
						if (ok) { ws.b[d] = mid; atomicAdd(&x.ctl[qOf<M>(ws) * C_SIZE + C_SPLITS], 1ULL); }
					}
					__syncwarp();
				}
			}
			if (lane == 0) ws.base[d] = nb;
			__syncwarp();
			pending = true;
			continue;
		}
		int bit = __ffs(m) - 1;
		if (lane == 0) {
			u32 rest = m & (m - 1);
			// Feed idle warps (count mode): every other valid candidate of
			// this chunk whose next run is at least P_SPLITRUN long (a heavy
			// root, say) becomes a task of its own, so one warp does not walk
			// heavy subtrees in turn while others wait. Only heavy ones: a
			// task costs microseconds on the queue's lock, more than a light
			// subtree, and handing on every candidate of every chunk (the
			// first version) shredded the whole search tree into tasks that
			// queued on that lock. A one-candidate task evaluates that
			// candidate again, and it is walked again, not expanded (its run
			// is as long as here): the chunk's expanded candidates are not
			// counted twice. Not in enumerate mode, where a suspension hands
			// on the rest of the chunk as a range.
			u32 heavy = rest & ws.heavy[d];
			if ((M || !(F & F_CHECKS) || !x.enumerate) && d + 2 < k && heavy) {
				while (heavy && idleWaiting(x)) {
					u32 hb = 31 - __clz(heavy);
					u32 at = ws.base[d] + hb;
					if (!push<M, F>(x, ws, d, at, at + 1, true)) break;
					heavy &= ~(1u << hb);
					rest &= ~(1u << hb);
					atomicAdd(&x.ctl[qOf<M>(ws) * C_SIZE + C_SPLITS], 1ULL);
				}
			}
			ws.mask[d] = rest;
			bind<M, F>(x, ws, d, bit);
		}
		__syncwarp();
		int nd = d + 1;
		int sel = ws.rsel[nd][bit];
		u32 ln = ws.rnode[nd][bit], a = ws.ra[nd][bit], b = ws.rb[nd][bit], tg = ws.rtarget[nd][bit];
		if (nd == k - 1 && tallyLast) {
			spend(ws, lane, 1);
			tally<M, F>(x, ws, nd, sel, a, b, ln, tg, lane, nm, no);
			continue;
		}
		if (lane == 0) {
			ws.sel[nd] = sel; ws.listNode[nd] = ln; ws.a[nd] = a; ws.b[nd] = b; ws.base[nd] = a;
			ws.target[nd] = tg; ws.mask[nd] = 0;
		}
		__syncwarp();
		d = nd;
		pending = true;
	}
}

// mine: each warp claims up to P_CLAIM roots at a time, or a queued
// subtree when the roots are gone, until no warp is active and the queue
// is empty. A claim costs one atomic on the shared root counter; a warp
// counts itself active (it may still push tasks) from the claim that
// ends its idling to the claim that fails, not claim by claim: on a window
// of light roots the per-claim atomics on the few control words were a
// floor of their own.
// With P_GUIDE set the claims shrink as the roots run out (guided
// self-scheduling: a share of the roots left per warp, at least one), so
// the last claims are single roots and no warp walks a claim of heavy
// roots in turn while the others idle; a small graph or batch (fewer roots than 32
// per warp) is spread over every warp from the start. The claims cost one
// atomic each, the queue's tasks a lock.
//
// The nq queries of a launch share the roots [rootLo, rootHi): claims
// are taken from nq x nroots root slots, query after query, so the warps
// that finish one query's roots go on to the next instead of idling
// until the launch ends (a streaming batch's ten queries cost one launch
// and one tail, not ten). A claim that crosses into the next query is
// mined as two pieces, one per query. Each query's counts go to its own
// control block, ctl[q * C_SIZE]; the scheduling slots are query 0's.
//
// group > 0 interleaves the queries by groups of that many roots instead:
// the slots run over roots [0, group) for query 0, 1, …, nq-1, then the
// next group of roots for each query, and so on (the last group padded:
// its slots past rootHi are empty pieces). A warp then mines the same
// roots' neighbourhoods for query after query while they are in its
// caches, at the price of more queries' plans in use at once; 0: query
// after query (the group is the whole root range).
#define MINE_PARAMS const Win *win, i64 rootLo, i64 rootHi, i64 horizon, const unsigned char *rootMask, \
	u64 *ctl, Task *queue, i64 queueCap, i64 splitCap, i64 *out, i64 outCap, i64 enumerate, i64 nq, i64 group
#define MINE_ARGS win, rootLo, rootHi, horizon, rootMask, ctl, queue, queueCap, splitCap, out, outCap, enumerate, nq, group

// flushCounts adds the warp's matches of query q to its control block.
__device__ __forceinline__ void flushCounts(u64 *ctl, int q, int lane, u64 *nm, u64 *no) {
	u64 m = *nm, o = *no;
	for (int s = 16; s > 0; s >>= 1) {
		m += __shfl_down_sync(FULL, m, s);
		o += __shfl_down_sync(FULL, o, s);
	}
	if (lane == 0) {
		if (m) atomicAdd(&ctl[q * C_SIZE + C_MATCHES], m);
		if (o) atomicAdd(&ctl[q * C_SIZE + C_OPEN], o);
	}
	*nm = 0;
	*no = 0;
}

template <bool M, int F>
__device__ __forceinline__ void mineBody(MINE_PARAMS) {
	__shared__ typename WSOf<F>::T wss[WARPS];
	const int lane = threadIdx.x & 31;
	WS &ws = wss[threadIdx.x >> 5];
	// The launch's constants (the window's arrays, the bounds, the control
	// block) live in shared memory, one copy per block, read where used:
	// held in registers across the whole search they were spilled to local
	// memory, whose loads sit on the hot path.
	__shared__ Ctx xs;
	if (threadIdx.x == 0) {
		xs.w = *win;
		xs.rootLo = rootLo; xs.rootHi = rootHi; xs.horizon = horizon; xs.rootMask = rootMask;
		xs.ctl = ctl; xs.queue = queue; xs.queueCap = queueCap; xs.splitCap = splitCap;
		xs.out = out; xs.outCap = outCap; xs.enumerate = (int)enumerate; xs.nq = nq;
		xs.budget = ctl[C_BUDGET];
		const u64 nsLeft = ctl[C_NSLEFT];
		xs.deadline = nsLeft ? globalTimer() + nsLeft : 0;
		xs.limited = xs.budget != 0 || nsLeft != 0;
	}
	__syncthreads();
	const Ctx &x = xs;
	if (lane == 0) {
		ws.steps = 0;
		ws.countsOf = 0;
		setQuery(ws, 0);
	}
	const u64 nroots = (u64)(rootHi - rootLo);
	const u64 grp = M && group > 0 ? (u64)group : nroots;
	const u64 slots = M ? (nroots + grp - 1) / grp * grp * (u64)nq : nroots;
	// The options (P_GUIDE among them) are the same in every query's plan.
	const u64 guide = (u64)max(P[P_GUIDE], (i64)0) * (u64)gridDim.x * WARPS;
	const u64 claimMax = (u64)max(P[P_CLAIM], (i64)32);
	u64 nm = 0, no = 0;
	bool idle = false, active = false;
	while (true) {
		int got = 0;  // 1: roots, 2: task, -1: exit
		u64 start = 0, end = 0;
		if (lane == 0) {
			u64 next = 0, claim = claimMax;
			if (*(volatile u64 *)&ctl[C_OVERFLOW] || *(volatile u64 *)&ctl[C_TRUNC]) {
				got = -1;
			} else if ((next = *(volatile u64 *)&ctl[C_ROOTNEXT]) < slots &&
				   (claim = guide ? max(min((slots - next) / guide, claimMax), (u64)1) : claimMax,
				    start = atomicAdd(&ctl[C_ROOTNEXT], claim)) < slots) {
				got = 1;
				end = min(start + claim, slots);
			} else {
				int d = pop<M, F>(x, ws);
				if (d >= 0) {
					got = 2;
					start = (u64)d;
				}
			}
			if (got > 0) {
				if (!active) { atomicAdd(&ctl[C_ACTIVE], 1ULL); active = true; }
				if (idle) { atomicAdd(&ctl[C_IDLE], (u64)-1LL); idle = false; }
			} else if (got == 0) {
				// No work: the pushes of this warp's last pieces are seen
				// before it stops counting as active.
				if (active) { __threadfence(); atomicAdd(&ctl[C_ACTIVE], (u64)-1LL); active = false; }
				if (!idle) { atomicAdd(&ctl[C_IDLE], 1ULL); idle = true; }
				__threadfence();
				if (*(volatile u64 *)&ctl[C_ACTIVE] == 0 && *(volatile u64 *)&ctl[C_QSIZE] == 0) got = -1;
				else __nanosleep(2000);
			}
		}
		got = __shfl_sync(FULL, got, 0);
		if (got < 0) break;
		if (got == 0) continue;
		bool done = true;
		if (!M) {
			// One query: the claim is one piece, held in registers.
			start = __shfl_sync(FULL, start, 0);
			int d0 = 0;
			if (got == 1) {
				if (lane == 0) {
					ws.sel[0] = 2; ws.a[0] = (u32)start; ws.base[0] = (u32)start; ws.b[0] = (u32)end; ws.mask[0] = 0;
				}
			} else {
				d0 = (int)start;
			}
			__syncwarp();
			done = dfs<M, F>(x, ws, d0, lane, &nm, &no);
		} else {
			// Several queries: a root claim is one piece per query it spans,
			// a task one piece.
			if (lane == 0) {
				ws.claimNext = got == 1 ? start : 0;
				ws.claimEnd = got == 1 ? end : 0;
				ws.taskD = got == 2 ? (int)start : 0;
			}
			do {
				__syncwarp();
				const bool roots = ws.claimNext < ws.claimEnd;
				const int d0 = roots ? 0 : ws.taskD;
				__syncwarp();  // every lane has read the claim before lane 0 moves it
				if (roots && lane == 0) {
					// Slot c is root (c's group) x grp + (c within its query's
					// run of the group) of query q; the piece ends with the
					// claim or that run.
					const u64 c = ws.claimNext, span = grp * (u64)nq, blk = c / span, r = c - blk * span, q = r / grp;
					const u64 end = min(ws.claimEnd, blk * span + (q + 1) * grp);
					const u64 at = blk * grp + (r - q * grp);
					const u64 a = min(at, nroots), b = min(at + (end - c), nroots);
					setQuery(ws, (int)q);
					ws.sel[0] = 2; ws.a[0] = (u32)a; ws.base[0] = (u32)a; ws.b[0] = (u32)b; ws.mask[0] = 0;
					ws.claimNext = end;
				}
				__syncwarp();
				const int q = ws.q, was = ws.countsOf;
				__syncwarp();
				if (q != was) {
					flushCounts(ctl, was, lane, &nm, &no);
					if (lane == 0) ws.countsOf = q;
				}
				__syncwarp();
				done = dfs<M, F>(x, ws, d0, lane, &nm, &no);
				__syncwarp();
			} while (ws.claimNext < ws.claimEnd && done);
		}
		if (lane == 0 && !done) atomicExch(&ctl[C_OVERFLOW], 1ULL);
		__syncwarp();
		if (!done) break;
	}
	if (lane == 0 && active) {
		__threadfence();
		atomicAdd(&ctl[C_ACTIVE], (u64)-1LL);
	}
	if (lane == 0 && idle) atomicAdd(&ctl[C_IDLE], (u64)-1LL);
	if (lane == 0 && ws.steps) atomicAdd(&ctl[C_STEPS], ws.steps);
	flushCounts(ctl, M ? ws.countsOf : 0, lane, &nm, &no);
}

// One occupancy, 6 blocks of 128 threads per multiprocessor (80
// registers): the fastest measured (BENCHMARKS.md); gpu/engine_cuda.go
// sizes the grid to fill the chip with it. The builds at 4, 5 and 8 were
// the same code under other launch bounds, and each cost the driver a
// full compile at every cold start, so they are gone (issue 27). mine*
// mine one query (plan at offset 0 of P and PF); mineq* the nq queries of
// a batch (Engine.MineBatch: count mode, no budget or deadline), each
// warp reading its current query's plan through an offset. Separate
// builds, so one query's launch pays nothing for the batches' offsets.
// The *p builds add the closing-edge pruning and the gathering (F_PRUNE |
// F_COMPACT), the *x builds expand2 (F_EXP2), the *a builds the runs from
// the previous edge's rank and the host's closing lists (F_ANCHOR), the
// *s build the closing runs' prescan (F_PRESCAN: its few instructions in
// the shared evaluate cost the plans without such a step 1-4% on tg10m
// when every build had them): gpu/kernelnames.go runs them for the
// launches whose plans they pay for (closePays, expand2Pays, anchorPays,
// prescans), every other launch runs the plain build. The *c builds
// (F_CHECKS) carry the predicates, anti-edges and the match output, which
// no other build has: a launch of a plan with any, or in enumerate mode,
// runs one of them (gpu/kernelnames.go, checkedKernel).
#define MINE_KERNEL(name, occ, multi, feat) \
	extern "C" __global__ void __launch_bounds__(WARPS * 32, occ) name(MINE_PARAMS) { mineBody<multi, feat>(MINE_ARGS); }
MINE_KERNEL(mine6, 6, false, 0)
MINE_KERNEL(mine6p, 6, false, F_PRUNE | F_COMPACT)
MINE_KERNEL(mine6x, 6, false, F_EXP2)
MINE_KERNEL(mine6px, 6, false, F_PRUNE | F_COMPACT | F_EXP2)
MINE_KERNEL(mine6a, 6, false, F_ANCHOR)
MINE_KERNEL(mine6ax, 6, false, F_ANCHOR | F_EXP2)
MINE_KERNEL(mine6s, 6, false, F_PRESCAN)
MINE_KERNEL(mineq6, 6, true, 0)
MINE_KERNEL(mineq6p, 6, true, F_PRUNE | F_COMPACT)
// The checked builds: for plans with predicates or anti-edges and for
// enumerate mode, with the pruning (and, heavy, expand2) their plans may
// have laid out; they skip the anchor and prescan builds' gains.
MINE_KERNEL(mine6c, 6, false, F_CHECKS | F_PRUNE | F_COMPACT)
MINE_KERNEL(mine6cx, 6, false, F_CHECKS | F_PRUNE | F_COMPACT | F_EXP2)
MINE_KERNEL(mineq6c, 6, true, F_CHECKS | F_PRUNE | F_COMPACT)

// ======================= device window maintenance =======================

// scanLocal: exclusive scan of 1024-element tiles (256 threads x 4); tile
// totals go to sums. scanAdd adds the scanned tile totals back.
#define SCAN_TILE 1024
extern "C" __global__ void scanLocal(const u32 *in, u32 *out, i64 n, u32 *sums) {
	__shared__ u32 wsum[8];
	i64 base = (i64)blockIdx.x * SCAN_TILE + threadIdx.x * 4;
	u32 v[4], s = 0;
	for (int i = 0; i < 4; i++) {
		v[i] = base + i < n ? in[base + i] : 0;
		s += v[i];
	}
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
	u32 inc = s;
	for (int o = 1; o < 32; o <<= 1) {
		u32 y = __shfl_up_sync(FULL, inc, o);
		if (lane >= o) inc += y;
	}
	if (lane == 31) wsum[wid] = inc;
	__syncthreads();
	if (wid == 0) {
		u32 ws = lane < 8 ? wsum[lane] : 0;
		for (int o = 1; o < 8; o <<= 1) {
			u32 y = __shfl_up_sync(FULL, ws, o);
			if (lane >= o) ws += y;
		}
		if (lane < 8) wsum[lane] = ws;
	}
	__syncthreads();
	u32 run = inc - s + (wid > 0 ? wsum[wid - 1] : 0);
	for (int i = 0; i < 4; i++) {
		if (base + i < n) out[base + i] = run;
		run += v[i];
	}
	if (threadIdx.x == 255) sums[blockIdx.x] = run;
}

extern "C" __global__ void scanAdd(u32 *out, i64 n, const u32 *sums) {
	i64 i = (i64)blockIdx.x * SCAN_TILE + threadIdx.x;
	u32 add = sums[blockIdx.x];
	for (int j = 0; j < 4; j++, i += 256)
		if (i < n) out[i] += add;
}

// Stable LSD radix sort of (key, value) pairs, 8 bits a pass.
// radixHist counts each tile's digits; the counts, digit-major
// (hist[digit * tiles + tile]), are exclusive-scanned into each tile's
// first output slot per digit; radixScatter places every item, keeping
// input order within a digit (warp match + per-warp digit counts).
#define RADIX_TILE 4096
extern "C" __global__ void radixHist(const u32 *keys, i64 n, i64 shift, u32 *hist, i64 tiles) {
	__shared__ u32 h[256];
	h[threadIdx.x] = 0;
	__syncthreads();
	i64 base = (i64)blockIdx.x * RADIX_TILE;
	for (int i = threadIdx.x; i < RADIX_TILE; i += 256) {
		i64 j = base + i;
		if (j < n) atomicAdd(&h[(keys[j] >> shift) & 255], 1u);
	}
	__syncthreads();
	hist[(i64)threadIdx.x * tiles + blockIdx.x] = h[threadIdx.x];
}

extern "C" __global__ void radixScatter(const u32 *keysIn, const i64 *valsIn, u32 *keysOut, i64 *valsOut,
					 i64 n, i64 shift, const u32 *offsets, i64 tiles) {
	__shared__ u32 run[256];
	__shared__ u32 cnt[8][256];
	const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
	run[threadIdx.x] = offsets[(i64)threadIdx.x * tiles + blockIdx.x];
	for (int w = 0; w < 8; w++) cnt[w][threadIdx.x] = 0;
	__syncthreads();
	i64 base = (i64)blockIdx.x * RADIX_TILE;
	for (int r = 0; r < RADIX_TILE / 256; r++) {
		i64 j = base + r * 256 + threadIdx.x;
		bool ok = j < n;
		u32 key = ok ? keysIn[j] : 0;
		u32 dig = ok ? (key >> shift) & 255 : 256;
		u32 peers = __match_any_sync(FULL, dig);
		u32 rank = __popc(peers & ((1u << lane) - 1));
		if (ok && rank == 0) cnt[wid][dig] = __popc(peers);
		__syncthreads();
		if (ok) {
			u32 before = 0;
			for (int w = 0; w < wid; w++) before += cnt[w][dig];
			u32 dst = run[dig] + before + rank;
			keysOut[dst] = key;
			valsOut[dst] = valsIn[j];
		}
		__syncthreads();
		u32 tot = 0;
		for (int w = 0; w < 8; w++) { tot += cnt[w][threadIdx.x]; cnt[w][threadIdx.x] = 0; }
		run[threadIdx.x] += tot;
		__syncthreads();
	}
}

// gatherKeys: key of each new edge (its src for the out-lists, dst for the
// in-lists) and its position as the value, in position order.
extern "C" __global__ void gatherKeys(const u32 *col, i64 slot0, i64 pos0, i64 n, u32 *keys, i64 *vals) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		keys[i] = col[slot0 + i];
		vals[i] = pos0 + i;
	}
}

// liveStart: for each vertex, the first entry of its old list that
// survives eviction (position >= first), and how many survive.
extern "C" __global__ void liveStart(const u32 *off, const i64 *Pos, i64 oldVerts, i64 verts, i64 first,
				      u32 *start, u32 *keep) {
	i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= verts) return;
	if (v >= oldVerts) { start[v] = 0; keep[v] = 0; return; }
	u32 lo = off[v], hi = off[v + 1], e = hi;
	while (lo < hi) {
		u32 h = lo + ((hi - lo) >> 1);
		if (Pos[h] < first) lo = h + 1; else hi = h;
	}
	start[v] = lo;
	keep[v] = e - lo;
}

// countNew: per-vertex counts of the sorted new keys, and where each
// vertex's run starts in the sorted batch.
extern "C" __global__ void countNew(const u32 *keys, i64 n, u32 *cnt, u32 *firstIdx) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	u32 k = keys[i];
	if (i == 0 || keys[i - 1] != k) firstIdx[k] = (u32)i;
	atomicAdd(&cnt[k], 1u);
}

extern "C" __global__ void addSizes(const u32 *keep, const u32 *cnt, u32 *size, i64 verts) {
	i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (v < verts) size[v] = keep[v] + cnt[v];
	if (v == verts) size[v] = 0;
}

// scatterOld moves the surviving entries of the old lists to their new
// places (order kept). The owner vertex comes from the edge column.
extern "C" __global__ void scatterOld(const i64 *oT, const i64 *oPos, const u32 *oOther, i64 oldTotal, i64 first,
				       const u32 *ownerCol, i64 base, const u32 *start, const u32 *newOff,
				       i64 *nT, i64 *nPos, u32 *nOther) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= oldTotal) return;
	i64 p = oPos[i];
	if (p < first) return;
	u32 v = ownerCol[p - base];
	u32 dst = newOff[v] + (u32)(i - start[v]);
	nT[dst] = oT[i];
	nPos[dst] = p;
	nOther[dst] = oOther[i];
}

// scatterNew appends the sorted new edges after each vertex's survivors.
extern "C" __global__ void scatterNew(const u32 *keys, const i64 *vals, i64 n, const u32 *otherCol, const i64 *tcol,
				       i64 base, const u32 *newOff, const u32 *keep, const u32 *firstIdx,
				       i64 *nT, i64 *nPos, u32 *nOther) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	u32 v = keys[i];
	i64 p = vals[i];
	u32 dst = newOff[v] + keep[v] + (u32)(i - firstIdx[v]);
	nT[dst] = tcol[p - base];
	nPos[dst] = p;
	nOther[dst] = otherCol[p - base];
}

// moveCols shifts the live column slots down to slot 0 (compaction), into
// separate destination buffers.
extern "C" __global__ void moveU32(const u32 *src, u32 *dst, i64 from, i64 n) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) dst[i] = src[from + i];
}
extern "C" __global__ void moveI64(const i64 *src, i64 *dst, i64 from, i64 n) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) dst[i] = src[from + i];
}

// ======================= pair-ordered adjacency =======================
// (gpu/window_cuda.go buildPairs) The out entries' indices sorted stably
// by other endpoint, then by owner: each owner's entries in (other,
// position) order.

extern "C" __global__ void pairKeys(const u32 *other, i64 n, u32 *keys, i64 *vals) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		keys[i] = other[i];
		vals[i] = i;
	}
}

extern "C" __global__ void pairOwners(const i64 *vals, i64 n, const i64 *outPos, const u32 *src, i64 base, u32 *keys) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) keys[i] = src[outPos[vals[i]] - base];
}

extern "C" __global__ void pairGather(const i64 *vals, i64 n, const i64 *oT, const i64 *oPos, const u32 *oOther,
				       i64 *pT, i64 *pPos, u32 *pOther) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		i64 j = vals[i];
		pT[i] = oT[j];
		pPos[i] = oPos[j];
		pOther[i] = oOther[j];
	}
}

// ======================= list ranks =======================
// rankOwn: each entry's index within its owner's list, stored at its
// edge's slot (entries of one list: out with owner column src, or in
// with dst).
extern "C" __global__ void rankOwn(const i64 *Pos, i64 total, const u32 *off, const u32 *ownerCol, i64 base, u32 *rank) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= total) return;
	i64 s = Pos[i] - base;
	rank[s] = (u32)(i - off[ownerCol[s]]);
}

// rankCross: for each live slot's edge u->v, the entries of in(u) and of
// out(v) before it (binary searches by position).
extern "C" __global__ void rankCross(const u32 *src, const u32 *dst, i64 slot0, i64 n, i64 base,
				     const u32 *inOff, const i64 *inPos, const u32 *outOff, const i64 *outPos,
				     u32 *rankInSrc, u32 *rankOutDst) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	i64 s = slot0 + i, p = base + s;
	u32 u = src[s], v = dst[s];
	u32 lo = inOff[u], hi = inOff[u + 1];
	while (lo < hi) {
		u32 h = lo + ((hi - lo) >> 1);
		if (inPos[h] < p) lo = h + 1; else hi = h;
	}
	rankInSrc[s] = lo - inOff[u];
	lo = outOff[v]; hi = outOff[v + 1];
	while (lo < hi) {
		u32 h = lo + ((hi - lo) >> 1);
		if (outPos[h] < p) lo = h + 1; else hi = h;
	}
	rankOutDst[s] = lo - outOff[v];
}

// gpm.cu — static graph pattern mining on the GPU, DuMato-style (the
// paper's DM_WC / DM_OPT): one warp per traversal over DFS-wide TE arrays
// in global memory; the workflow phases of gpm/te.go as warp-centric
// device functions; clique counting (A1) and motif counting (A2) as in
// gpm/apps.go (the paper's Algorithm 4): gpmRun. gpmCliquePA counts
// cliques pattern-aware (DuMato's PA variant, gpm.TE.ExtendAdjacent):
// each level's candidates are the parent's narrowed to the newest
// vertex's neighbours.
//
// Built to PTX for sm_90 and committed beside this file (kernels/gpm.ptx)
// by `go generate ./kernels` (the command is in kernels.go); check
// registers/spills with
//   third_party/cuda-toolkit/usr/bin/ptxas -arch=sm_90 -v kernels/gpm.ptx -o /dev/null
//
// gorgonia.org/cu passes every kernel parameter as 8 bytes: all parameters
// are pointers or 64-bit integers.
//
// TE layout (per warp w, K = k, C = per-level capacity: K × max degree for
// motifs, the max upward degree for cliques):
//   tr[w*K + i]           traversal vertices
//   code[w*(K+1) + l]     induced edges of tr[:l] (pattern code, motifs)
//   nxt[w*(K+1) + l]      next extension of level l that Move consumes
//   cnt[w*(K+1) + l]      extensions at level l
//   full[w*(K+1) + l]     candidates of level l (gpmCliquePA: cnt[l] can
//                         be cut below it by a split; see gpm.TE.full)
//   st[w*4 + 0..3]        len, base, root offset, root stride
//   ext[(w*K + l)*C + i]  extensions of level l: vertex | adj << 32
//                         (gpmCliquePA: the vertex alone, 32-bit)
// Level 0 holds the roots implicitly: its i-th extension is vertex
// rootOff + i*rootStride (a static strided share), so splitting it for an
// idle warp is halving [nxt, cnt). The host (gpu/gpm_cuda.go) reads and
// rewrites these arrays between kernel slices to redistribute work. A
// launch with fresh = 1 ignores the arrays and starts every warp on its
// roots (so a job that ends in its first launch copies no TE state);
// every launch parks the TEs back.
//
// ctl: [0] warps parked with work left, [1] iterations, [2] cliques.

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

#define WARP 32
#define WPB 4 // warps per block
#define MAXK 32
#define FULL 0xffffffffu

struct WarpTE {
	u32 tr[MAXK];
	u64 code[MAXK + 1];
	i64 nxt[MAXK + 1];
	i64 cnt[MAXK + 1];
	i64 len, base, rootOff, rootStride;
};

__device__ __forceinline__ int pairBit0(int j) { return j * (j - 1) / 2; }

// has reports whether y is in the sorted list adj[lo, hi).
__device__ __forceinline__ bool has(const u32 *adj, i64 lo, i64 hi, u32 y) {
	while (lo < hi) {
		i64 mid = (lo + hi) >> 1;
		u32 v = adj[mid];
		if (v == y) return true;
		if (v < y) lo = mid + 1; else hi = mid;
	}
	return false;
}

// Move is the DFS step (uniform across the warp: every lane computes the
// same result from shared memory; lane 0 writes). Forward: consume the
// next extension of the current traversal when it is below the limit;
// otherwise back up to the deepest level with one left.
__device__ void move(WarpTE *t, const u64 *ext, i64 C, int K, int limit, int lane) {
	for (;;) {
		int l = (int)t->len;
		if (l < limit && t->nxt[l] < t->cnt[l]) {
			i64 i = t->nxt[l];
			u32 v, adjBits;
			if (l == 0) {
				v = (u32)(t->rootOff + i * t->rootStride);
				adjBits = 0;
			} else {
				u64 e = ext[(i64)l * C + i];
				v = (u32)e;
				adjBits = (u32)(e >> 32);
			}
			__syncwarp();
			if (lane == 0) {
				t->nxt[l] = i + 1;
				t->tr[l] = v;
				t->code[l + 1] = t->code[l] | ((u64)adjBits << pairBit0(l));
				t->cnt[l + 1] = 0;
				t->nxt[l + 1] = 0;
				t->len = l + 1;
			}
			__syncwarp();
			return;
		}
		if (l == (int)t->base) return; // exhausted: Control is false
		__syncwarp();
		if (lane == 0) t->len = l - 1;
		__syncwarp();
	}
}

// compact keeps, in order, the extensions of level l for which keep(e)
// holds: the paper's Filter and Compact, one ballot per 32 entries
// (entries are read before any is written, and writes land at or before
// the chunk being read, so it works in place).
template <typename P>
__device__ void filterCompact(WarpTE *t, u64 *lvl, int l, int lane, P keep) {
	i64 n = t->cnt[l], out = 0;
	for (i64 base = 0; base < n; base += WARP) {
		i64 i = base + lane;
		u64 e = i < n ? lvl[i] : 0;
		bool k = i < n && keep(e);
		u32 b = __ballot_sync(FULL, k);
		__syncwarp();
		if (k) lvl[out + __popc(b & ((1u << lane) - 1))] = e;
		out += __popc(b);
	}
	__syncwarp();
	if (lane == 0) t->cnt[l] = out;
	__syncwarp();
}

// extendAll is motif counting's Extend from every traversal vertex: each
// lane takes one neighbour y of tr[j], computes its adjacency bits to the
// whole traversal (binary searches), and keeps it only when j is its first
// neighbour in the traversal (so each candidate appears once) and it is
// not itself in the traversal.
__device__ void extendAll(WarpTE *t, u64 *lvl, const i64 *off, const u32 *adj, int l, int lane) {
	i64 out = 0;
	for (int j = 0; j < l; j++) {
		u32 u = t->tr[j];
		i64 lo = off[u], hi = off[u + 1];
		for (i64 base = lo; base < hi; base += WARP) {
			i64 i = base + lane;
			bool keep = i < hi;
			u32 y = keep ? adj[i] : 0, bits = 0;
			for (int q = 0; keep && q < l; q++) {
				u32 w = t->tr[q];
				if (w == y) { keep = false; break; }
				if (q == j) { bits |= 1u << q; continue; }
				if (has(adj, off[w], off[w + 1], y)) {
					if (q < j) { keep = false; break; } // met already from tr[q]'s list
					bits |= 1u << q;
				}
			}
			u32 b = __ballot_sync(FULL, keep);
			if (keep) lvl[out + __popc(b & ((1u << lane) - 1))] = (u64)y | ((u64)bits << 32);
			out += __popc(b);
		}
	}
	__syncwarp();
	if (lane == 0) t->cnt[l] = out;
	__syncwarp();
}

// extendFirst is clique counting's Extend from the first vertex: a
// coalesced copy of its (upward) neighbour list.
__device__ void extendFirst(WarpTE *t, u64 *lvl, const i64 *off, const u32 *adj, int l, int lane) {
	u32 u = t->tr[0];
	i64 lo = off[u], n = off[u + 1] - lo;
	for (i64 i = lane; i < n; i += WARP) lvl[i] = (u64)adj[lo + i] | (1ull << 32);
	__syncwarp();
	if (lane == 0) t->cnt[l] = n;
	__syncwarp();
}

// aggregatePatterns is A2: each extension completes a subgraph whose raw
// code indexes the dense tally; lanes holding the same code add once.
__device__ void aggregatePatterns(WarpTE *t, const u64 *lvl, int l, int lane, u64 *counts) {
	i64 n = t->cnt[l];
	u64 base = t->code[l];
	int shift = pairBit0(l);
	for (i64 b = 0; b < n; b += WARP) {
		i64 i = b + lane;
		bool ok = i < n;
		u64 c = ok ? base | ((u64)(u32)(lvl[i] >> 32) << shift) : ~0ull;
		u32 same = __match_any_sync(FULL, c);
		if (ok && (__ffs(same) - 1) == lane) atomicAdd(&counts[c], (u64)__popc(same));
	}
}

// rootShare is warp w's static share of the n roots: w, w + warps, …
__device__ __forceinline__ i64 rootShare(i64 w, i64 warps, i64 n) { return n > w ? (n - w + warps - 1) / warps : 0; }

// gpmRun runs every warp's workflow loop for at most budget iterations,
// then parks it at Control (its TE describing exactly the work left) and
// counts it in ctl[0] if it has work. app: 0 clique, 1 motif. fresh: start
// every warp on its share of the n roots instead of loading its TE.
// counts: motif — the dense tally by raw code; cliques go to ctl[2].
// ctl[1] accumulates iterations (traversals extended).
extern "C" __global__ void __launch_bounds__(WPB * WARP, 10) gpmRun(const i64 *off, const u32 *adj, i64 app, i64 k, i64 warps, i64 C, i64 budget,
                                  i64 fresh, i64 n, u32 *trA, u64 *codeA, i64 *nxtA, i64 *cntA, i64 *stA,
                                  u64 *extA, u64 *counts, i64 *ctl) {
	__shared__ WarpTE tes[WPB];
	int lane = threadIdx.x & (WARP - 1);
	int wib = threadIdx.x / WARP;
	i64 w = (i64)blockIdx.x * WPB + wib;
	if (w >= warps) return; // whole warps only: the block size is a multiple of 32
	WarpTE *t = &tes[wib];
	int K = (int)k, limit = K - 1;
	// Load the TE into shared memory (or start it on its roots).
	for (int i = lane; i <= K; i += WARP) {
		if (fresh) {
			if (i < K) t->tr[i] = 0;
			t->code[i] = 0;
			t->nxt[i] = 0;
			t->cnt[i] = i == 0 ? rootShare(w, warps, n) : 0;
			continue;
		}
		if (i < K) t->tr[i] = trA[w * K + i];
		t->code[i] = codeA[w * (K + 1) + i];
		t->nxt[i] = nxtA[w * (K + 1) + i];
		t->cnt[i] = cntA[w * (K + 1) + i];
	}
	if (lane == 0) {
		t->len = fresh ? 0 : stA[w * 4 + 0];
		t->base = fresh ? 0 : stA[w * 4 + 1];
		t->rootOff = fresh ? w : stA[w * 4 + 2];
		t->rootStride = fresh ? warps : stA[w * 4 + 3];
	}
	__syncwarp();
	u64 *ext = extA + w * K * C;
	if (t->len == t->base) move(t, ext, C, K, limit, lane); // a fresh or donated TE
	u64 found = 0;
	i64 it = 0;
	for (; t->len > t->base && it < budget; it++) { // Control
		int l = (int)t->len;
		u64 *lvl = ext + (i64)l * C;
		if (app == 0) {
			extendFirst(t, lvl, off, adj, l, lane);                          // [EX] range [0,1)
			u32 last = t->tr[l - 1];
			filterCompact(t, lvl, l, lane, [&](u64 e) { return (u32)e > last; }); // [FL] lower, [CP]
			filterCompact(t, lvl, l, lane, [&](u64 e) {                          // [FL] is_clique, [CP]
				u32 y = (u32)e;
				for (int q = 1; q < l; q++) {
					u32 v = t->tr[q];
					if (!has(adj, off[v], off[v + 1], y)) return false;
				}
				return true;
			});
			if (l == limit) found += t->cnt[l]; // [A1]
		} else {
			extendAll(t, lvl, off, adj, l, lane); // [EX] range [0,len)
			u32 first = t->tr[0];
			filterCompact(t, lvl, l, lane, [&](u64 e) { // [FL] is_canonical, [CP]
				u32 y = (u32)e, bits = (u32)(e >> 32);
				if (y < first) return false;
				for (int q = __ffs(bits); q < l; q++)
					if (t->tr[q] > y) return false;
				return true;
			});
			if (l == limit) aggregatePatterns(t, lvl, l, lane, counts); // [A2]
		}
		move(t, ext, C, K, limit, lane); // [MV]
	}
	// Park: write the TE back.
	for (int i = lane; i <= K; i += WARP) {
		if (i < K) trA[w * K + i] = t->tr[i];
		codeA[w * (K + 1) + i] = t->code[i];
		nxtA[w * (K + 1) + i] = t->nxt[i];
		cntA[w * (K + 1) + i] = t->cnt[i];
	}
	if (lane == 0) {
		stA[w * 4 + 0] = t->len;
		stA[w * 4 + 1] = t->base;
		stA[w * 4 + 2] = t->rootOff;
		stA[w * 4 + 3] = t->rootStride;
		if (found) atomicAdd((u64 *)&ctl[2], found);
		if (t->len > t->base) atomicAdd((u64 *)&ctl[0], 1ull);
		atomicAdd((u64 *)&ctl[1], (u64)it);
	}
}

// ---- Pattern-aware cliques (DuMato's PA variant) ----------------------
//
// On the Ranked graph (ids are ranks; adj holds the upward neighbours,
// sorted), the candidates of level l — the vertices that extend the
// clique tr[:l] — are level l-1's candidates after tr[l-1] (the ones its
// Move has not consumed yet, up to full[l-1]) that are adjacent to
// tr[l-1]: an intersection of two sorted lists, computed by the warp
// (lanes take the shorter list's entries and binary-search the longer;
// ballot/popc compact the hits in order). Level 1's are tr[0]'s upward
// neighbours. A level with fewer than k - l candidates cannot complete a
// clique and is dropped (gpm.cliquePAApp's Discard), and Move skips a
// candidate with fewer than k - l - 1 after it. Level k-1 is never
// materialised, nor even moved to: at l = k-2 every edge among the
// candidates C completes one k-clique, so the warp counts the pairs
// (i < j, C[j] ∈ adj(C[i])) by ballot/popc instead of moving to each C[i]
// and counting C[i+1:] ∩ adj(C[i]) one traversal at a time.
//
// Balancing is gpmRun's: slices of budget iterations, TEs parked in the
// global arrays, and the host's redistribution (gpu/gpm_cuda.go), which
// reads full[] to hand a receiver the donor's whole candidate tail.

struct PATE {
	u32 tr[MAXK];
	i64 nxt[MAXK + 1];
	i64 cnt[MAXK + 1];
	i64 full[MAXK + 1];
	i64 len, base, rootOff, rootStride;
};

// movePA is Move for gpmCliquePA (uniform across the warp; lane 0 writes).
__device__ void movePA(PATE *t, const u32 *ext, i64 C, int K, int limit, int lane) {
	for (;;) {
		int l = (int)t->len;
		if (l < limit && t->nxt[l] < t->cnt[l]) {
			i64 i = t->nxt[l];
			if (l > 0 && t->full[l] - i - 1 < K - l - 1) { // too few candidates after it, and after every later one
				__syncwarp();
				if (lane == 0) t->nxt[l] = t->cnt[l];
				__syncwarp();
				continue;
			}
			u32 v = l == 0 ? (u32)(t->rootOff + i * t->rootStride) : ext[(i64)l * C + i];
			__syncwarp();
			if (lane == 0) {
				t->nxt[l] = i + 1;
				t->tr[l] = v;
				t->cnt[l + 1] = 0;
				t->full[l + 1] = 0;
				t->nxt[l + 1] = 0;
				t->len = l + 1;
			}
			__syncwarp();
			return;
		}
		if (l == (int)t->base) return; // exhausted: Control is false
		__syncwarp();
		if (lane == 0) t->len = l - 1;
		__syncwarp();
	}
}

// lowerBound returns the first position in the sorted a[lo, hi) whose
// entry is ≥ y.
__device__ __forceinline__ i64 lowerBound(const u32 *a, i64 lo, i64 hi, u32 y) {
	while (lo < hi) {
		i64 mid = (lo + hi) >> 1;
		if (a[mid] < y) lo = mid + 1; else hi = mid;
	}
	return lo;
}

// intersect writes p[0, pn) ∩ a[0, an) (both sorted) to out in order and
// returns its size (uniform). out must not alias p or a.
__device__ i64 intersect(const u32 *p, i64 pn, const u32 *a, i64 an, u32 *out, int lane) {
	const u32 *s = p, *l = a;
	i64 sn = pn, ln = an;
	if (an < pn) { s = a; l = p; sn = an; ln = pn; }
	i64 o = 0, lo = 0;
	for (i64 b = 0; b < sn && lo < ln; b += WARP) {
		i64 i = b + lane;
		u32 y = i < sn ? s[i] : 0xffffffffu;
		i64 at = i < sn ? lowerBound(l, lo, ln, y) : ln;
		bool hit = at < ln && l[at] == y;
		u32 m = __ballot_sync(FULL, hit);
		if (hit) out[o + __popc(m & ((1u << lane) - 1))] = y;
		o += __popc(m);
		// The chunk's entries ascend: the next chunk searches after the
		// last lane's position.
		lo = __shfl_sync(FULL, at, WARP - 1);
	}
	__syncwarp();
	return o;
}

// pairAdvance moves the pair cursor (i, j), i < j < m in row-major order,
// d pairs forward (past the last pair it stops with i ≥ m - 1).
__device__ __forceinline__ void pairAdvance(i64 &i, i64 &j, i64 m, i64 d) {
	j += d;
	while (j >= m && i < m - 1) {
		i++;
		j = j - m + i + 1;
	}
}

// countEdges returns the number of pairs i < j with c[j] in adj(c[i]),
// c sorted (uniform): the k-cliques completing a (k-2)-clique whose
// candidates are c.
__device__ u64 countEdges(const u32 *c, i64 m, const i64 *off, const u32 *adj, int lane) {
	u64 found = 0;
	i64 total = m * (m - 1) / 2;
	i64 ri = 0, rj = 1; // the chunk's first pair
	for (i64 b = 0; b < total; b += WARP) {
		i64 i = ri, j = rj;
		pairAdvance(i, j, m, lane);
		bool hit = false;
		if (b + lane < total) {
			u32 u = c[i];
			hit = has(adj, off[u], off[u + 1], c[j]);
		}
		found += __popc(__ballot_sync(FULL, hit));
		pairAdvance(ri, rj, m, WARP);
	}
	return found;
}

// gpmCliquePA counts k-cliques pattern-aware; its TEs, slices (budget),
// parking and ctl are gpmRun's, with full[] and 32-bit extensions.
extern "C" __global__ void gpmCliquePA(const i64 *off, const u32 *adj, i64 k, i64 warps, i64 C, i64 budget,
                                       i64 fresh, i64 n, u32 *trA, i64 *nxtA, i64 *cntA, i64 *fullA, i64 *stA,
                                       u32 *extA, i64 *ctl) {
	__shared__ PATE tes[WPB];
	int lane = threadIdx.x & (WARP - 1);
	int wib = threadIdx.x / WARP;
	i64 w = (i64)blockIdx.x * WPB + wib;
	if (w >= warps) return;
	PATE *t = &tes[wib];
	int K = (int)k;
	int limit = K > 2 ? K - 2 : 1; // the deepest traversal moved to
	for (int i = lane; i <= K; i += WARP) {
		if (fresh) {
			if (i < K) t->tr[i] = 0;
			t->nxt[i] = 0;
			t->cnt[i] = i == 0 ? rootShare(w, warps, n) : 0;
			t->full[i] = t->cnt[i];
			continue;
		}
		if (i < K) t->tr[i] = trA[w * K + i];
		t->nxt[i] = nxtA[w * (K + 1) + i];
		t->cnt[i] = cntA[w * (K + 1) + i];
		t->full[i] = fullA[w * (K + 1) + i];
	}
	if (lane == 0) {
		t->len = fresh ? 0 : stA[w * 4 + 0];
		t->base = fresh ? 0 : stA[w * 4 + 1];
		t->rootOff = fresh ? w : stA[w * 4 + 2];
		t->rootStride = fresh ? warps : stA[w * 4 + 3];
	}
	__syncwarp();
	u32 *ext = extA + w * K * C;
	if (t->len == t->base) movePA(t, ext, C, K, limit, lane);
	u64 found = 0;
	i64 it = 0;
	for (; t->len > t->base && it < budget; it++) { // Control
		int l = (int)t->len;
		u32 *lvl = ext + (i64)l * C;
		u32 last = t->tr[l - 1];
		const u32 *up = adj + off[last];
		i64 nUp = off[last + 1] - off[last];
		i64 m = 0;
		if (K == 2) {
			found += nUp; // [A1] each upward neighbour completes an edge
		} else if (l == 1) { // [EX] the root's upward neighbours
			if (nUp >= K - 1) {
				for (i64 i = lane; i < nUp; i += WARP) lvl[i] = up[i];
				m = nUp;
			}
		} else { // [EX] + [FL]: the parent's candidates after tr[l-1], adjacent to it
			i64 from = t->nxt[l - 1], pn = t->full[l - 1] - from;
			if (min(pn, nUp) >= K - l) m = intersect(ext + (i64)(l - 1) * C + from, pn, up, nUp, lvl, lane);
		}
		__syncwarp();
		if (m < K - l) m = 0; // cannot fill the clique
		if (m > 0 && l == K - 2) { // [A1] every edge among the candidates completes a k-clique
			found += countEdges(lvl, m, off, adj, lane);
			m = 0;
		}
		__syncwarp();
		if (lane == 0) {
			t->cnt[l] = m;
			t->full[l] = m;
			t->nxt[l] = 0;
		}
		__syncwarp();
		movePA(t, ext, C, K, limit, lane); // [MV]
	}
	for (int i = lane; i <= K; i += WARP) {
		if (i < K) trA[w * K + i] = t->tr[i];
		nxtA[w * (K + 1) + i] = t->nxt[i];
		cntA[w * (K + 1) + i] = t->cnt[i];
		fullA[w * (K + 1) + i] = t->full[i];
	}
	if (lane == 0) {
		stA[w * 4 + 0] = t->len;
		stA[w * 4 + 1] = t->base;
		stA[w * 4 + 2] = t->rootOff;
		stA[w * 4 + 3] = t->rootStride;
		if (found) atomicAdd((u64 *)&ctl[2], found);
		if (t->len > t->base) atomicAdd((u64 *)&ctl[0], 1ull);
		atomicAdd((u64 *)&ctl[1], (u64)it);
	}
}

// gpmMoveExt copies extension runs between warps' arrays for a
// redistribution, one warp per run: moves[3r .. 3r+2] = source and
// destination offsets and length of run r, in 32-bit words of ext.
extern "C" __global__ void gpmMoveExt(u32 *ext, const i64 *moves, i64 n) {
	int lane = threadIdx.x & (WARP - 1);
	i64 nw = (i64)gridDim.x * blockDim.x / WARP;
	for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / WARP; r < n; r += nw) {
		i64 src = moves[3 * r], dst = moves[3 * r + 1], len = moves[3 * r + 2];
		for (i64 i = lane; i < len; i += WARP) ext[dst + i] = ext[src + i];
	}
}

// gpmZero clears n 64-bit words.
extern "C" __global__ void gpmZero(u64 *p, i64 n) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) p[i] = 0;
}

// gpm.cu — static graph pattern mining on the GPU, DuMato-style (the
// paper's DM_WC / DM_OPT): one warp per traversal over DFS-wide TE arrays
// in global memory; the workflow phases of gpm/te.go as warp-centric
// device functions; clique counting (A1) and motif counting (A2) as in
// gpm/apps.go (the paper's Algorithm 4).
//
// Built to PTX for sm_90 and committed beside this file (kernels/gpm.ptx):
//   scripts/nvcc.sh -ptx -arch=sm_90 -O3 -lineinfo kernels/gpm.cu -o kernels/gpm.ptx
// (CUDA 11.8 nvcc from scripts/cuda-toolkit.sh); check registers/spills with
//   third_party/cuda-toolkit/usr/bin/ptxas -arch=sm_90 -v kernels/gpm.ptx -o /dev/null
//
// gorgonia.org/cu passes every kernel parameter as 8 bytes: all parameters
// are pointers or 64-bit integers.
//
// TE layout (per warp w, K = k, C = per-level capacity = K × max degree):
//   tr[w*32 + i]          traversal vertices
//   code[w*33 + l]        induced edges of tr[:l] (pattern code, motifs)
//   nxt[w*33 + l]         next extension of level l that Move consumes
//   cnt[w*33 + l]         extensions at level l
//   st[w*4 + 0..3]        len, base, root offset, root stride
//   ext[(w*K + l)*C + i]  extensions of level l: vertex | adj << 32
// Level 0 holds the roots implicitly: its i-th extension is vertex
// rootOff + i*rootStride (a static strided share), so splitting it for an
// idle warp is halving [nxt, cnt). The host (gpu/gpm_cuda.go) reads and
// rewrites these arrays between kernel slices to redistribute work.

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

// gpmRun runs every warp's workflow loop for at most budget iterations,
// then parks it at Control (its TE describing exactly the work left) and
// counts it in ctl[0] if it has work. app: 0 clique, 1 motif. counts:
// clique — one counter per warp; motif — the dense tally by raw code.
// ctl[1] accumulates iterations (traversals extended).
extern "C" __global__ void gpmRun(const i64 *off, const u32 *adj, i64 app, i64 k, i64 warps, i64 C, i64 budget,
                                  u32 *trA, u64 *codeA, i64 *nxtA, i64 *cntA, i64 *stA, u64 *extA,
                                  u64 *counts, i64 *ctl) {
	__shared__ WarpTE tes[WPB];
	int lane = threadIdx.x & (WARP - 1);
	int wib = threadIdx.x / WARP;
	i64 w = (i64)blockIdx.x * WPB + wib;
	if (w >= warps) return; // whole warps only: the block size is a multiple of 32
	WarpTE *t = &tes[wib];
	int K = (int)k, limit = K - 1;
	// Load the TE into shared memory.
	for (int i = lane; i <= K; i += WARP) {
		if (i < K) t->tr[i] = trA[w * MAXK + i];
		t->code[i] = codeA[w * (MAXK + 1) + i];
		t->nxt[i] = nxtA[w * (MAXK + 1) + i];
		t->cnt[i] = cntA[w * (MAXK + 1) + i];
	}
	if (lane == 0) {
		t->len = stA[w * 4 + 0];
		t->base = stA[w * 4 + 1];
		t->rootOff = stA[w * 4 + 2];
		t->rootStride = stA[w * 4 + 3];
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
		if (i < K) trA[w * MAXK + i] = t->tr[i];
		codeA[w * (MAXK + 1) + i] = t->code[i];
		nxtA[w * (MAXK + 1) + i] = t->nxt[i];
		cntA[w * (MAXK + 1) + i] = t->cnt[i];
	}
	if (lane == 0) {
		stA[w * 4 + 0] = t->len;
		stA[w * 4 + 1] = t->base;
		if (app == 0) counts[w] += found;
		if (t->len > t->base) atomicAdd((u64 *)&ctl[0], 1ull);
		atomicAdd((u64 *)&ctl[1], (u64)it);
	}
}

// gpmZero clears n 64-bit words.
extern "C" __global__ void gpmZero(u64 *p, i64 n) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) p[i] = 0;
}

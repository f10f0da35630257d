// kernels/count3.cu: package motif/count3's passes on the device. First
// (count3Centres) the centre pass over sequences the host builds (gpu's
// CountSequences); the counting over the device's window mirror, c3*, is
// below. count3Centres: each thread runs whole sequences as count3's
// scanCentre does (see its comment for the formulas): a sequence is a
// centre's incident edges in window-position order, longest first (the
// host sorts them) so a warp's threads get similar lengths.
//
// Layouts (checked by gpu/count3_test.go against count3's Go types):
//   Ev is count3.Event: {int64 pos, int64 t, int32 local, uint8 flags}, 24 B.
//   raw is count3.Raw: 136 int64 counters; centres add to [0, 32) and
//   the four-node stars [128, 136).
//   scratch holds per-slot state, 10 int64 (c1[2] pp[4] sp[4]); soff is
//   the prefix sum of slots.
//
// Built to kernels/count3.ptx by `go generate ./kernels` (the command is in
// kernels.go).

struct Ev {
    long long pos;
    long long t;
    int local;
    unsigned char flags;
};

#define F_IN 1
#define F_COUNTED 2
#define F_HIGHER 4

#define RAW_PAIR 0
#define RAW_PRE 8
#define RAW_MID 16
#define RAW_POST 24
#define RAW_TRI 32
#define RAW_STAR4 128

#define CENTRE_STATE 10

// apart is motif/count3's apart (event.go): u - t > d for times t <= u and
// d >= 0 (the host passes no negative δ), exact for any two int64 times as
// the difference is taken unsigned. The signed t < u - d wrapped near
// -2^63, and the scan ran past its sequence.
__device__ __forceinline__ bool apart(long long t, long long u, long long d) {
    return (unsigned long long)u - (unsigned long long)t > (unsigned long long)d;
}

// flush adds a thread's n counters to the block's and then the block's to
// raw: local counter k goes to raw[k + base], or raw[k - split + base2]
// from k = split on.
__device__ __forceinline__ void flush(unsigned long long *acc, const long long *loc, int n, int base,
                                      int split, int base2, unsigned long long *raw) {
    for (int k = 0; k < n; k++) {
        if (loc[k] != 0) atomicAdd(&acc[k], (unsigned long long)loc[k]);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
        if (acc[k] != 0) atomicAdd(&raw[k < split ? k + base : k - split + base2], acc[k]);
    }
}

extern "C" __global__ void count3Centres(const long long *off, const long long *soff, const Ev *ev,
                                         long long *scratch, unsigned long long *raw, long long n,
                                         long long delta) {
    // loc: [0, 32) as raw, [32, 40) the four-node stars (RAW_STAR4).
    __shared__ unsigned long long acc[40];
    for (int k = threadIdx.x; k < 40; k += blockDim.x) acc[k] = 0;
    __syncthreads();
    long long loc[40];
    for (int k = 0; k < 40; k++) loc[k] = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const Ev *e0 = ev + off[i];
        long long len = off[i + 1] - off[i];
        long long *st = scratch + soff[i] * CENTRE_STATE;
        for (long long k = 0; k < (soff[i + 1] - soff[i]) * CENTRE_STATE; k++) st[k] = 0;
        long long spp[4] = {0, 0, 0, 0}, p2[4] = {0, 0, 0, 0};
        long long pk[2] = {0, 0}, ps[2] = {0, 0};
        long long s = 0;
        for (long long k = 0; k < len; k++) {
            Ev e = e0[k];
            while (apart(e0[s].t, e.t, delta)) {
                Ev a = e0[s];
                int da = a.flags & F_IN;
                long long *nb = st + (long long)a.local * CENTRE_STATE;
                long long *c1 = nb, *pp = nb + 2, *sp = nb + 6;
                c1[da]--;
                for (int d = 0; d < 2; d++) {
                    p2[da * 2 + d] -= pk[d] - ps[d] - (d == da);
                    pp[da * 2 + d] -= c1[d];
                    spp[da * 2 + d] -= c1[d];
                    sp[da * 2 + d] -= ps[d];
                }
                ps[da]++;
                s++;
            }
            int dk = e.flags & F_IN;
            long long *nb = st + (long long)e.local * CENTRE_STATE;
            long long *c1 = nb, *pp = nb + 2, *sp = nb + 6;
            if (e.flags & F_COUNTED) {
                for (int d1 = 0; d1 < 2; d1++) {
                    for (int d2 = 0; d2 < 2; d2++) {
                        int ii = d1 * 2 + d2, o = ii * 2 + dk;
                        long long p = pp[ii];
                        if (e.flags & F_HIGHER) loc[RAW_PAIR + o] += p;
                        loc[RAW_PRE + o] += spp[ii] - p;
                        long long mid = c1[d1] * pk[d2] - sp[ii] - p;
                        if (d1 == d2) mid -= c1[d1];
                        loc[RAW_MID + o] += mid;
                        long long post = sp[d2 * 2 + d1] - c1[d2] * ps[d1] - p;
                        loc[RAW_POST + o] += post;
                        loc[32 + o] += p2[ii] - spp[ii] - mid - post;
                    }
                }
            }
            for (int d = 0; d < 2; d++) {
                p2[d * 2 + dk] += pk[d] - ps[d];
                pp[d * 2 + dk] += c1[d];
                spp[d * 2 + dk] += c1[d];
            }
            c1[dk]++;
            sp[dk * 2] += pk[0];
            sp[dk * 2 + 1] += pk[1];
            pk[dk]++;
        }
    }
    flush(acc, loc, 40, 0, 32, RAW_STAR4, raw);
}

// ---------------------------------------------------------------------
// Counting over the device's window mirror (gpu/count3win_cuda.go): the
// device builds every sequence it counts from the mirror's edge columns,
// and runs the centre pass (stars, two-node, Small family) and the
// triangle pass of motif/count3 itself. The formulas are count3's
// (scanCentre, scanSmall, countTriangle); what differs is the layout:
//
//   entries: each edge at both its ends (self-loops left out), radix-sorted
//   by centre, stable, so A = every centre's incident edges in position
//   order (At, Apf = rel pos << 3 | fIn | fCounted << 1 | fHigher << 2,
//   Aother), coff[c] its first index;
//   pieces: a centre's sequence is cut into pieces of at most L counted
//   edges, each with the warm-up before it (its edges within δ of its
//   first counted one), so a hub is many threads' work; a piece's
//   neighbour slots come from sorting its entries by (piece, neighbour);
//   B: A stable-sorted by (centre, neighbour): each node pair's edges in
//   position order at either end (its groups), with exclusive scans of
//   the fIn and fCounted flags over all of B (Sin, Sc, Sci), so a group's
//   prefix counts at any index, its sentinel's included, are differences;
//   triangles: the forward groups (own end first in degree order) listed
//   per centre, intersected (thread per forward pair), counted per task:
//   a triangle's two light sides' merged sequence cut into pieces of LT
//   edges (merge path), each with its warm-up, like a centre's.
//
// Positions are relative to the window's first (at most 2^29 edges here).
// ---------------------------------------------------------------------

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

#define I64_MAX 0x7fffffffffffffffLL
#define I64_MIN (-I64_MAX - 1LL)
#define PF_END 0xffffffffu
#define SMALL_STATE 14
#define RAW_PAIR2 136
#define RAW_WEDGE 140
#define RAW_PAIR4 144

// motif.SubTicks and AddTicks for d >= 0: saturated, never wrapped.
__device__ __forceinline__ i64 subTicks(i64 t, i64 d) { return t < I64_MIN + d ? I64_MIN : t - d; }
__device__ __forceinline__ i64 addTicks(i64 t, i64 d) { return t > I64_MAX - d ? I64_MAX : t + d; }

#define GRID_LOOP(i, n) for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

// c3Entries writes edge k's two ends (2k at its source, 2k+1 at its
// destination) as (centre, entry) pairs; a self-loop's key is verts, so
// that it sorts after every centre, and loops counts them.
extern "C" __global__ void c3Entries(const u32 *src, const u32 *dst, i64 slot0, i64 n, i64 verts, u32 *keys,
                                     i64 *vals, u32 *loops) {
    GRID_LOOP(k, n) {
        u32 s = src[slot0 + k], d = dst[slot0 + k];
        bool loop = s == d;
        keys[2 * k] = loop ? (u32)verts : s;
        keys[2 * k + 1] = loop ? (u32)verts : d;
        vals[2 * k] = 2 * k;
        vals[2 * k + 1] = 2 * k + 1;
        if (loop) atomicAdd(loops, 1u);
    }
}

// c3Offsets: off[c] = the first index of sorted keys[0, n) at or above c,
// for c in [0, nkeys].
extern "C" __global__ void c3Offsets(const u32 *keys, i64 n, i64 nkeys, u32 *off) {
    GRID_LOOP(i, n + 1) {
        i64 prev = i == 0 ? -1 : (i64)keys[i - 1];
        i64 cur = i == n ? nkeys : (i64)keys[i];
        for (i64 c = prev + 1; c <= cur; c++) off[c] = (u32)i;
    }
}

// c3Gather lays out A from the sorted entries: time, flags and the other
// end of each. counted: at or after lo (the scope's start, not before the
// window's first) and, with a mask (mask != 0), mask[pos - lo].
extern "C" __global__ void c3Gather(const i64 *vals, i64 n2, const u32 *centre, const u32 *src, const u32 *dst,
                                    const i64 *t, i64 slot0, i64 first, i64 lo, const unsigned char *mask,
                                    i64 *At, u32 *Apf, u32 *Aother) {
    GRID_LOOP(i, n2) {
        i64 e = vals[i], k = e >> 1;
        u32 end = (u32)(e & 1);
        u32 other = end ? src[slot0 + k] : dst[slot0 + k];
        i64 pos = first + k;
        bool counted = pos >= lo && (mask == 0 || mask[pos - lo]);
        At[i] = t[slot0 + k];
        Apf[i] = (u32)(k << 3) | end | (counted ? F_COUNTED : 0) | (other > centre[i] ? F_HIGHER : 0);
        Aother[i] = other;
    }
}

// c3KeyIota: keys[i] = of[i], vals[i] = i.
extern "C" __global__ void c3KeyIota(const u32 *of, i64 n, u32 *keys, i64 *vals) {
    GRID_LOOP(i, n) {
        keys[i] = of[i];
        vals[i] = i;
    }
}

// c3KeyOf: keys[i] = of[vals[i]].
extern "C" __global__ void c3KeyOf(const i64 *vals, i64 n, const u32 *of, u32 *keys) {
    GRID_LOOP(i, n) keys[i] = of[vals[i]];
}

// ---- the centre pass ----

// c3PieceCount: each centre's pieces (none under two edges: nothing ends
// there).
extern "C" __global__ void c3PieceCount(const u32 *coff, i64 verts, i64 L, u32 *np) {
    GRID_LOOP(c, verts + 1) {
        i64 len = c < verts ? (i64)coff[c + 1] - coff[c] : 0;
        np[c] = len >= 2 ? (u32)((len + L - 1) / L) : 0;
    }
}

// lowerT returns the first index in [lo, hi] of At whose time is at least
// t, given At[hi] >= t.
__device__ __forceinline__ u32 lowerT(const i64 *At, u32 lo, u32 hi, i64 t) {
    while (lo < hi) {
        u32 m = lo + (hi - lo) / 2;
        if (At[m] < t) lo = m + 1;
        else hi = m;
    }
    return lo;
}

// c3Pieces lays out piece q, of centre c: the k-th of c's pieces counts
// A[cnt, to), cnt = coff[c] + k·L, and starts its warm-up at the first
// edge within δ of A[cnt] (count3's pieces: the δ window of every counted
// edge lies in the piece). A thread per piece: a hub has thousands, and
// each one's warm-up is a binary search. plen[NP] is 0, for the scan.
extern "C" __global__ void c3Pieces(const u32 *coff, const u32 *pieceOff, i64 verts, i64 NP, const i64 *At,
                                    i64 delta, i64 L, u32 *pfrom, u32 *pcnt, u32 *pto, u32 *plen) {
    GRID_LOOP(q, NP + 1) {
        if (q == NP) {
            plen[NP] = 0;
            continue;
        }
        u32 c = 0, hi = (u32)verts; // the last c with pieceOff[c] <= q
        while (hi - c > 1) {
            u32 m = c + (hi - c) / 2;
            if (pieceOff[m] <= (u32)q) c = m;
            else hi = m;
        }
        u32 k = (u32)q - pieceOff[c];
        u32 c0 = coff[c], c1 = coff[c + 1];
        u32 cnt = c0 + k * (u32)L;
        u32 to = min(cnt + (u32)L, c1);
        u32 from = k == 0 ? c0 : lowerT(At, c0, cnt, subTicks(At[cnt], delta));
        pfrom[q] = from;
        pcnt[q] = cnt;
        pto[q] = to;
        plen[q] = to - from;
    }
}

// c3PFill lays out the pieces' entries (P, piece by piece) for the sort
// that numbers each piece's neighbours: PA the entry's A index, Pq its
// piece; keys its neighbour, vals its P index.
extern "C" __global__ void c3PFill(const u32 *poff, i64 NP, i64 nP, const u32 *pfrom, const u32 *Aother, u32 *keys,
                                   i64 *vals, u32 *PA, u32 *Pq) {
    GRID_LOOP(j, nP) {
        u32 lo = 0, hi = (u32)NP; // the last piece q with poff[q] <= j
        while (hi - lo > 1) {
            u32 m = lo + (hi - lo) / 2;
            if (poff[m] <= (u32)j) lo = m;
            else hi = m;
        }
        u32 a = pfrom[lo] + ((u32)j - poff[lo]);
        PA[j] = a;
        Pq[j] = lo;
        keys[j] = Aother[a];
        vals[j] = j;
    }
}

// c3PHeads flags the first entry of each (piece, neighbour) run of the
// sorted P (vals: P indices); head[nP] = 0, for the scan.
extern "C" __global__ void c3PHeads(const i64 *vals, i64 nP, const u32 *Pq, const u32 *PA, const u32 *Aother,
                                    u32 *head) {
    GRID_LOOP(i, nP + 1) {
        if (i == nP) {
            head[i] = 0;
            continue;
        }
        u32 j = (u32)vals[i];
        bool h = i == 0;
        if (!h) {
            u32 j0 = (u32)vals[i - 1];
            h = Pq[j0] != Pq[j] || Aother[PA[j0]] != Aother[PA[j]];
        }
        head[i] = h;
    }
}

// c3PSlots: each P entry's slot, numbered over all pieces (a piece's
// slots are contiguous).
extern "C" __global__ void c3PSlots(const i64 *vals, i64 nP, const u32 *head, const u32 *E, u32 *Pslot) {
    GRID_LOOP(i, nP) Pslot[vals[i]] = E[i] + head[i] - 1;
}

// sweepStars is count3's scanCentre over one piece: A[from, to), counted
// from cnt on; st is the stars' state, CENTRE_STATE per slot, zeroed.
__device__ void sweepStars(const i64 *At, const u32 *Apf, const u32 *slot, u32 from, u32 cnt, u32 to,
                           i64 delta, i64 *st, i64 *loc) {
    i64 spp[4] = {0, 0, 0, 0}, p2[4] = {0, 0, 0, 0};
    i64 pk[2] = {0, 0}, ps[2] = {0, 0};
    u32 s = from;
    for (u32 k = from; k < to; k++) {
        i64 t = At[k];
        u32 pf = Apf[k];
        while (apart(At[s], t, delta)) {
            int da = Apf[s] & F_IN;
            i64 *nb = st + (i64)slot[s - from] * CENTRE_STATE;
            i64 *c1 = nb, *pp = nb + 2, *sp = nb + 6;
            c1[da]--;
            for (int d = 0; d < 2; d++) {
                p2[da * 2 + d] -= pk[d] - ps[d] - (d == da);
                pp[da * 2 + d] -= c1[d];
                spp[da * 2 + d] -= c1[d];
                sp[da * 2 + d] -= ps[d];
            }
            ps[da]++;
            s++;
        }
        int dk = pf & F_IN;
        i64 *nb = st + (i64)slot[k - from] * CENTRE_STATE;
        i64 *c1 = nb, *pp = nb + 2, *sp = nb + 6;
        if ((pf & F_COUNTED) && k >= cnt) {
            for (int d1 = 0; d1 < 2; d1++) {
                for (int d2 = 0; d2 < 2; d2++) {
                    int ii = d1 * 2 + d2, o = ii * 2 + dk;
                    i64 p = pp[ii];
                    if (pf & F_HIGHER) loc[RAW_PAIR + o] += p;
                    loc[RAW_PRE + o] += spp[ii] - p;
                    i64 mid = c1[d1] * pk[d2] - sp[ii] - p;
                    if (d1 == d2) mid -= c1[d1];
                    loc[RAW_MID + o] += mid;
                    i64 post = sp[d2 * 2 + d1] - c1[d2] * ps[d1] - p;
                    loc[RAW_POST + o] += post;
                    loc[32 + o] += p2[ii] - spp[ii] - mid - post;
                }
            }
        }
        for (int d = 0; d < 2; d++) {
            p2[d * 2 + dk] += pk[d] - ps[d];
            pp[d * 2 + dk] += c1[d];
            spp[d * 2 + dk] += c1[d];
        }
        c1[dk]++;
        sp[dk * 2] += pk[0];
        sp[dk * 2 + 1] += pk[1];
        pk[dk]++;
    }
}

// sweepSmall is count3's scanSmall over one piece; st is its state,
// SMALL_STATE per slot (c1[2] pp[4] ppp[8]), zeroed; loc[0, 24) adds to
// raw[RAW_PAIR2, 160).
__device__ void sweepSmall(const i64 *At, const u32 *Apf, const u32 *slot, u32 from, u32 cnt, u32 to,
                           i64 delta, i64 *st, i64 *loc) {
    i64 w1[2] = {0, 0};
    u32 s = from;
    for (u32 k = from; k < to; k++) {
        i64 t = At[k];
        u32 pf = Apf[k];
        while (apart(At[s], t, delta)) {
            int da = Apf[s] & F_IN;
            i64 *nb = st + (i64)slot[s - from] * SMALL_STATE;
            i64 *c1 = nb, *pp = nb + 2, *ppp = nb + 6;
            w1[da]--;
            c1[da]--;
            for (int d = 0; d < 2; d++) pp[2 * da + d] -= c1[d];
            for (int i = 0; i < 4; i++) ppp[4 * da + i] -= pp[i];
            s++;
        }
        int dk = pf & F_IN;
        i64 *nb = st + (i64)slot[k - from] * SMALL_STATE;
        i64 *c1 = nb, *pp = nb + 2, *ppp = nb + 6;
        if ((pf & F_COUNTED) && k >= cnt) {
            for (int d = 0; d < 2; d++) loc[RAW_WEDGE - RAW_PAIR2 + 2 * d + dk] += w1[d] - c1[d];
            if (pf & F_HIGHER) {
                for (int d = 0; d < 2; d++) loc[2 * d + dk] += c1[d];
                for (int i = 0; i < 8; i++) loc[RAW_PAIR4 - RAW_PAIR2 + 2 * i + dk] += ppp[i];
            }
        }
        for (int i = 0; i < 4; i++) ppp[2 * i + dk] += pp[i];
        for (int d = 0; d < 2; d++) pp[2 * d + dk] += c1[d];
        c1[dk]++;
        w1[dk]++;
    }
}

// c3PieceKeys orders the pieces longest first (keys for a radix sort:
// 65535 − length, capped), so that a warp's threads sweep pieces of
// similar lengths and the longest start first.
extern "C" __global__ void c3PieceKeys(const u32 *pfrom, const u32 *pto, i64 NP, u32 *keys, i64 *vals) {
    GRID_LOOP(q, NP) {
        keys[q] = 65535 - min(pto[q] - pfrom[q], 65535u);
        vals[q] = q;
    }
}

// c3Sweep: one thread per piece (order: the pieces, longest first), the
// stars' scan and the Small family's. Pslot holds each P entry's slot,
// numbered over all pieces, so that the states are indexed by it
// directly.
extern "C" __global__ void c3Sweep(i64 NP, const i64 *order, const u32 *pfrom, const u32 *pcnt, const u32 *pto, const u32 *poff,
                                   const u32 *Pslot, const i64 *At, const u32 *Apf, i64 delta, i64 stars,
                                   i64 small, i64 *stState, i64 *smState, unsigned long long *raw) {
    __shared__ unsigned long long acc[40];
    for (int k = threadIdx.x; k < 40; k += blockDim.x) acc[k] = 0;
    __syncthreads();
    i64 loc[40];
    for (int k = 0; k < 40; k++) loc[k] = 0;
    GRID_LOOP(i, NP) {
        i64 q = order[i];
        const u32 *slot = Pslot + poff[q];
        if (stars) sweepStars(At, Apf, slot, pfrom[q], pcnt[q], pto[q], delta, stState, loc);
    }
    flush(acc, loc, 40, 0, 32, RAW_STAR4, raw);
    __syncthreads();
    if (!small) return;
    for (int k = threadIdx.x; k < 40; k += blockDim.x) acc[k] = 0;
    for (int k = 0; k < 40; k++) loc[k] = 0;
    __syncthreads();
    GRID_LOOP(i, NP) {
        i64 q = order[i];
        const u32 *slot = Pslot + poff[q];
        sweepSmall(At, Apf, slot, pfrom[q], pcnt[q], pto[q], delta, smState, loc);
    }
    flush(acc, loc, 24, RAW_PAIR2, 24, 0, raw);
}

// ---- the triangle pass ----

// c3BGather lays out B (vals: A indices in (centre, neighbour, position)
// order): times, pf = rel pos << 2 | fIn | fCounted (count3's pairEdge.pf),
// the neighbour, and the flags that the scans turn into group starts and
// prefix counts; index n2 holds zeros, so the scans' last entry is the
// total.
extern "C" __global__ void c3BGather(const i64 *vals, i64 n2, const u32 *Acentre, const u32 *Aother, const i64 *At,
                                     const u32 *Apf, i64 *Bt, u32 *Bpf, u32 *Bother, u32 *head, u32 *fin, u32 *fc,
                                     u32 *fci) {
    GRID_LOOP(j, n2 + 1) {
        if (j == n2) {
            head[j] = fin[j] = fc[j] = fci[j] = 0;
            continue;
        }
        i64 i = vals[j];
        u32 pf = Apf[i], other = Aother[i];
        Bt[j] = At[i];
        Bpf[j] = (pf >> 3) << 2 | (pf & (F_IN | F_COUNTED));
        Bother[j] = other;
        bool h = j == 0;
        if (!h) {
            i64 i0 = vals[j - 1];
            h = Acentre[i0] != Acentre[i] || Aother[i0] != other;
        }
        head[j] = h;
        fin[j] = pf & F_IN;
        fc[j] = (pf >> 1) & 1;
        fci[j] = pf & (pf >> 1) & 1;
    }
}

// c3Groups: gs[g] = group g's first index in B; gs[G] = n2.
extern "C" __global__ void c3Groups(const u32 *head, const u32 *E, i64 n2, u32 *gs) {
    GRID_LOOP(j, n2 + 1) {
        if (j == n2) gs[E[n2]] = (u32)n2;
        else if (head[j]) gs[E[j]] = (u32)j;
    }
}

// degree is node v's distinct neighbours: its groups.
__device__ __forceinline__ u32 degree(const u32 *coff, const u32 *E, u32 v) { return E[coff[v + 1]] - E[coff[v]]; }

// c3Forward flags the forward groups: own end before the other in
// degree order, then id (count3's triangles).
extern "C" __global__ void c3Forward(const u32 *gs, i64 G, const u32 *Bcentre, const u32 *Bother, const u32 *coff,
                                     const u32 *E, u32 *fw) {
    GRID_LOOP(g, G + 1) {
        if (g == G) {
            fw[g] = 0;
            continue;
        }
        u32 u = Bcentre[gs[g]], v = Bother[gs[g]];
        u32 du = degree(coff, E, u), dv = degree(coff, E, v);
        fw[g] = du < dv || (du == dv && u < v);
    }
}

// c3FFill lays out the forward adjacency: F entry f is group Fg[f] to
// node Fv[f], by centre and then neighbour id.
extern "C" __global__ void c3FFill(const u32 *fw, const u32 *Fidx, i64 G, const u32 *gs, const u32 *Bother, u32 *Fg,
                                   u32 *Fv) {
    GRID_LOOP(g, G) {
        if (fw[g]) {
            u32 f = Fidx[g];
            Fg[f] = (u32)g;
            Fv[f] = Bother[gs[g]];
        }
    }
}

// c3FOff: foff[u] = u's first F entry, for u in [0, verts].
extern "C" __global__ void c3FOff(const u32 *coff, const u32 *E, const u32 *Fidx, i64 verts, u32 *foff) {
    GRID_LOOP(u, verts + 1) foff[u] = Fidx[E[coff[u]]];
}

// meets is count3's timeSpan.meets over three groups' first and last
// times: room for one edge of each within δ.
__device__ __forceinline__ bool meets(const u32 *gs, const i64 *Bt, u32 g1, u32 g2, u32 g3, i64 delta) {
    i64 f = max(Bt[gs[g1]], max(Bt[gs[g2]], Bt[gs[g3]]));
    i64 l = min(Bt[gs[g1 + 1] - 1], min(Bt[gs[g2 + 1] - 1], Bt[gs[g3 + 1] - 1]));
    return f <= l || !apart(l, f, delta);
}

// c3Masks: each group's δ-wide time slots, folded into 64 bits (count3's
// timeSpan.slots: slot k = (t − t0) / width sets bit k mod 64; two edges
// within δ lie in the same or adjacent slots). A group of more than 1024
// edges gets every bit: its edges are not read for a filter.
extern "C" __global__ void c3Masks(const u32 *gs, i64 G, const i64 *Bt, i64 t0, i64 width, u64 *mask) {
    GRID_LOOP(g, G) {
        u32 j0 = gs[g], j1 = gs[g + 1];
        u64 m = 0;
        if (j1 - j0 > 1024) m = ~0ull;
        else
            for (u32 j = j0; j < j1; j++) m |= 1ull << (((u64)Bt[j] - (u64)t0) / (u64)width & 63);
        mask[g] = m;
    }
}

// near is count3's timeSpan.near: whether two groups' slots leave room
// for one edge of each within δ.
__device__ __forceinline__ bool near(const u64 *mask, u32 g1, u32 g2) {
    u64 x = mask[g2];
    return (mask[g1] & (x | (x << 1 | x >> 63) | (x >> 1 | x << 63))) != 0;
}

// c3List lists the static triangles from forward pair f = (u, v): every
// z in F(v) that is in F(u). mode 0 counts those whose sides meet within
// δ (meets) and whose light sides' slots are near into tcount[f] (tcount[FG] = 0, for the scan); mode 1 writes them
// from toff[f] as {a, b, c, flips} (count3's choice of the heaviest side
// a) and each one's tasks, pieces of LT light-side edges, into tpc
// (tpc[T] = 0).
extern "C" __global__ void c3List(i64 mode, const u32 *Fg, const u32 *Fv, i64 FG, const u32 *foff, const u32 *gs,
                                  const u32 *Bcentre, const i64 *Bt, const u64 *mask, i64 delta, u32 *tcount,
                                  const u32 *toff, uint4 *tris, u32 *tpc, i64 LT) {
    GRID_LOOP(f, FG + 1) {
        if (f == FG) {
            if (mode == 0) tcount[FG] = 0;
            else tpc[toff[FG]] = 0;
            continue;
        }
        u32 uv = Fg[f], v = Fv[f];
        u32 u = Bcentre[gs[uv]];
        u32 lo = foff[u], hi = foff[u + 1];
        u32 n = 0, at = mode == 0 ? 0 : toff[f];
        for (u32 j2 = foff[v]; j2 < foff[v + 1] && lo < hi; j2++) {
            u32 z = Fv[j2];
            u32 l = lo, h = hi; // the first of F(u)[lo, hi) at or above z
            while (l < h) {
                u32 m = l + (h - l) / 2;
                if (Fv[m] < z) l = m + 1;
                else h = m;
            }
            lo = l;
            if (l == hi || Fv[l] != z) continue;
            u32 uz = Fg[l], vz = Fg[j2];
            if (!meets(gs, Bt, uv, uz, vz, delta)) continue;
            u32 m1 = gs[uv + 1] - gs[uv], m2 = gs[uz + 1] - gs[uz], m3 = gs[vz + 1] - gs[vz];
            uint4 r;
            if (m1 >= m2 && m1 >= m3) r = make_uint4(uv, uz, vz, 0);
            else if (m2 >= m3) r = make_uint4(uz, uv, vz, 2);
            else r = make_uint4(vz, uv, uz, 3);
            if (!near(mask, r.y, r.z)) continue;
            if (mode == 0) {
                n++;
                continue;
            }
            i64 light = (i64)(gs[r.y + 1] - gs[r.y]) + (gs[r.z + 1] - gs[r.z]);
            tris[at] = r;
            tpc[at] = (u32)((light + LT - 1) / LT);
            at++;
        }
        if (mode == 0) tcount[f] = n;
    }
}

// c3Tasks: task k of triangle r is taskTri[k] = r; keys and vals order
// the tasks by their light edges, most first (a radix sort's keys: LT −
// edges), so that a warp's threads get tasks of similar sizes and the
// largest start first.
extern "C" __global__ void c3Tasks(const uint4 *tris, const u32 *gs, const u32 *tpoff, i64 T, i64 LT, u32 *taskTri,
                                   u32 *keys, i64 *vals) {
    GRID_LOOP(r, T) {
        uint4 tr = tris[r];
        i64 total = (i64)(gs[tr.y + 1] - gs[tr.y]) + (gs[tr.z + 1] - gs[tr.z]);
        for (u32 k = tpoff[r], m0 = 0; k < tpoff[r + 1]; k++, m0 += (u32)LT) {
            taskTri[k] = (u32)r;
            keys[k] = (u32)(LT - min(LT, total - m0));
            vals[k] = k;
        }
    }
}

// A pair list: group entries B[j0, j0+n) with their sentinel at n (time
// and pf at their maximum, prefix counts the group's totals), read
// through the B arrays.
struct BArr {
    const i64 *t;
    const u32 *pf, *sin, *sc, *sci;
};
struct PL {
    u32 j0, n;
};

__device__ __forceinline__ i64 plT(const BArr &B, PL l, u32 i) { return i < l.n ? B.t[l.j0 + i] : I64_MAX; }
__device__ __forceinline__ u32 plPF(const BArr &B, PL l, u32 i) { return i < l.n ? B.pf[l.j0 + i] : PF_END; }
// plIn: the list's edges before i into its own end (i <= n).
__device__ __forceinline__ u32 plIn(const BArr &B, PL l, u32 i) { return B.sin[l.j0 + i] - B.sin[l.j0]; }
// plCounted: the counted edges before i, out of and into the own end.
__device__ __forceinline__ void plCounted(const BArr &B, PL l, u32 i, i64 c[2]) {
    i64 all = B.sc[l.j0 + i] - B.sc[l.j0], in = B.sci[l.j0 + i] - B.sci[l.j0];
    c[0] = all - in;
    c[1] = in;
}

// seek is count3's gallop: the first index at or after from whose time
// is at least t (the sentinel stops it).
__device__ u32 seek(const BArr &B, PL l, u32 from, i64 t) {
    if (plT(B, l, from) >= t) return from;
    u32 lo = from, step = 1; // T(lo) < t
    while (lo + step <= l.n && plT(B, l, lo + step) < t) {
        lo += step;
        step *= 2;
    }
    u32 hi = min(lo + step, l.n);
    while (hi - lo > 1) {
        u32 m = lo + (hi - lo) / 2;
        if (plT(B, l, m) < t) lo = m;
        else hi = m;
    }
    return hi;
}

// after: the first index at or after from whose time is after t.
__device__ __forceinline__ u32 after(const BArr &B, PL l, u32 from, i64 t) {
    return t == I64_MAX ? l.n : seek(B, l, from, t + 1);
}

// nextActive is count3's: moves at past the light edges with no edge of
// the other light side within δ and returns the side of the next edge
// by position, -1 once both lists are over. Whether an edge is skipped
// depends on the edge alone, so two walks from one state meet the same
// edges.
__device__ int nextActive(const BArr &B, PL b, PL c, u32 at[2], i64 delta) {
    for (;;) {
        int side = plPF(B, c, at[1]) < plPF(B, b, at[0]) ? 1 : 0;
        PL ol = side ? c : b, other = side ? b : c;
        u32 a = at[side];
        if (plPF(B, ol, a) == PF_END) return -1;
        i64 et = B.t[ol.j0 + a];
        u32 k = at[side ^ 1];
        if ((k == 0 || apart(B.t[other.j0 + k - 1], et, delta)) && (k == other.n || apart(et, B.t[other.j0 + k], delta))) {
            if (k == other.n) at[side] = ol.n;
            else at[side] = seek(B, ol, a + 1, subTicks(B.t[other.j0 + k], delta));
            continue;
        }
        return side;
    }
}

// split is the merge path of lists b and c at merged index m: how many
// of b's edges are among the first m by position.
__device__ u32 split(const BArr &B, PL b, PL c, u32 m) {
    u32 lo = m > c.n ? m - c.n : 0, hi = min(m, b.n);
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (B.pf[b.j0 + mid] < B.pf[c.j0 + m - mid - 1]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// aCursors: for a light edge at (t, pf), the heavy side's first edge
// after it (ip) and first after t + δ (ih), moved forward from their
// last values (the edges come in position order); count3's countTriangle.
__device__ __forceinline__ void aCursors(const BArr &B, PL a, i64 t, u32 pf, u32 il, u32 &ip, u32 &ih, i64 delta) {
    ip = max(ip, il);
    if (plT(B, a, ip) < t) ip = seek(B, a, ip, t);
    while (plT(B, a, ip) == t && plPF(B, a, ip) < pf) ip++;
    ih = max(ih, ip);
    if (!apart(t, plT(B, a, ih), delta)) ih = after(B, a, ih, addTicks(t, delta));
}

// c3Triangles: one thread per task (order: the tasks, largest first), count3's countTriangle over the
// merged light sides' edges [m0, m1) of its triangle (m0 = piece·LT),
// after a warm-up over the edges within δ before them. count3 keeps the
// δ window's edges in a queue with what each added to the sums; here a
// second walk (tail) a window behind replays the same edges and
// recomputes what each added, so a task needs no memory of its own.
// The triples whose last light edge lies in [m0, m1) are this task's.
extern "C" __global__ void c3Triangles(const uint4 *tris, const u32 *tpoff, const u32 *taskTri, const i64 *order, i64 ntasks,
                                       const u32 *gs, const i64 *Bt, const u32 *Bpf, const u32 *Sin, const u32 *Sc,
                                       const u32 *Sci, i64 delta, i64 LT, unsigned long long *raw) {
    __shared__ unsigned long long acc[96];
    for (int k = threadIdx.x; k < 96; k += blockDim.x) acc[k] = 0;
    __syncthreads();
    BArr B = {Bt, Bpf, Sin, Sc, Sci};
    GRID_LOOP(i, ntasks) {
        i64 task = order[i];
        u32 r = taskTri[task];
        uint4 tr = tris[r];
        u32 piece = (u32)task - tpoff[r];
        PL a = {gs[tr.x], gs[tr.x + 1] - gs[tr.x]};
        PL b = {gs[tr.y], gs[tr.y + 1] - gs[tr.y]};
        PL c = {gs[tr.z], gs[tr.z + 1] - gs[tr.z]};
        u32 flip[2] = {tr.w & 1, tr.w >> 1};
        u32 total = b.n + c.n;
        u32 m0 = piece * (u32)LT, m1 = (u32)min((i64)m0 + LT, (i64)total);
        u32 start[2], end[2];
        start[0] = split(B, b, c, m0);
        start[1] = m0 - start[0];
        end[0] = split(B, b, c, m1);
        end[1] = m1 - end[0];
        u32 at[2] = {0, 0};
        if (m0 > 0) {
            // The warm-up: every edge no more than δ before the first
            // counted one (times grow with positions, on either side).
            bool fromB = plPF(B, b, start[0]) < plPF(B, c, start[1]);
            i64 t0 = fromB ? B.t[b.j0 + start[0]] : B.t[c.j0 + start[1]];
            i64 lim = subTicks(t0, delta);
            at[0] = seek(B, b, 0, lim);
            at[0] = min(at[0], start[0]);
            at[1] = seek(B, c, 0, lim);
            at[1] = min(at[1], start[1]);
        }
        u32 tat[2] = {at[0], at[1]};
        i64 cnt[4] = {0, 0, 0, 0};
        i64 s1[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, s2[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
        u32 queued = 0;
        u32 il = 0, ip = 0, ih = 0, tip = 0, tih = 0;
        for (;;) {
            int side = nextActive(B, b, c, at, delta);
            if (side < 0) break;
            PL l = side ? c : b;
            u32 idx = at[side];
            if (idx >= end[side]) break;
            i64 t = B.t[l.j0 + idx];
            u32 pf = B.pf[l.j0 + idx];
            at[side]++;
            while (queued > 0) {
                int ts = nextActive(B, b, c, tat, delta);
                PL tl = ts ? c : b;
                u32 ti = tat[ts];
                i64 tt = B.t[tl.j0 + ti];
                if (!apart(tt, t, delta)) break;
                u32 tpf = B.pf[tl.j0 + ti];
                tat[ts]++;
                int lab = 2 * ts + (int)((tpf & F_IN) ^ flip[ts]);
                aCursors(B, a, tt, tpf, 0, tip, tih, delta);
                u32 in = plIn(B, a, tip);
                i64 hi[2];
                plCounted(B, a, tih, hi);
                cnt[lab]--;
                s1[lab][0] -= (i64)(tip - in);
                s1[lab][1] -= (i64)in;
                s2[lab][0] -= hi[0];
                s2[lab][1] -= hi[1];
                queued--;
            }
            int lk = 2 * side + (int)((pf & F_IN) ^ flip[side]);
            if (plT(B, a, il) < t && apart(plT(B, a, il), t, delta)) il = seek(B, a, il, subTicks(t, delta));
            aCursors(B, a, t, pf, il, ip, ih, delta);
            u32 in = plIn(B, a, ip);
            i64 pa[2] = {(i64)(ip - in), (i64)in};
            int ob = 2 * (side ^ 1);
            bool own = idx >= start[side]; // the triples ending here are this task's
            if (own && (pf & F_COUNTED)) {
                u32 lin = plIn(B, a, il);
                i64 lo[2] = {(i64)(il - lin), (i64)lin};
                for (int lp = ob; lp < ob + 2; lp++) {
                    i64 n = cnt[lp];
                    if (n == 0) continue;
                    for (int d = 0; d < 2; d++) {
                        atomicAdd(&acc[16 * d + 4 * lp + lk], (unsigned long long)(s1[lp][d] - n * lo[d]));
                        atomicAdd(&acc[32 + 16 * d + 4 * lp + lk], (unsigned long long)(n * pa[d] - s1[lp][d]));
                    }
                }
            }
            if (own) {
                i64 pac[2];
                plCounted(B, a, ip, pac);
                for (int lp = ob; lp < ob + 2; lp++) {
                    i64 n = cnt[lp];
                    if (n == 0) continue;
                    atomicAdd(&acc[64 + 4 * lp + lk], (unsigned long long)(s2[lp][0] - n * pac[0]));
                    atomicAdd(&acc[64 + 16 + 4 * lp + lk], (unsigned long long)(s2[lp][1] - n * pac[1]));
                }
            }
            i64 hi[2];
            plCounted(B, a, ih, hi);
            cnt[lk]++;
            s1[lk][0] += pa[0];
            s1[lk][1] += pa[1];
            s2[lk][0] += hi[0];
            s2[lk][1] += hi[1];
            queued++;
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < 96; k += blockDim.x) {
        if (acc[k] != 0) atomicAdd(&raw[RAW_TRI + k], acc[k]);
    }
}

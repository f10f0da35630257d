// kernels/count3.cu: the counting passes of package motif/count3 (SNAP's 36
// three-edge temporal motifs counted, not enumerated), one kernel per
// family. Each thread runs whole sequences, exactly as count3's scanCentre
// and scanGroup do (see their comments for the formulas): a sequence is a
// centre's incident edges, or an assigned pair's edges merged with its
// triangles' other edges, in window-position order. The host sorts
// sequences longest first so a warp's threads get similar lengths.
//
// Layouts (checked by gpu/count3_test.go against count3's Go types):
//   Ev is count3.Event: {int64 pos, int64 t, int32 local, uint8 flags}, 24 B.
//   raw is count3.Raw: 136 int64 counters; centres add to [0, 32) and
//   the four-node stars [128, 136), triangles to [32, 128).
//   scratch holds per-slot state: centres 10 int64 (c1[2] pp[4] sp[4]),
//   triangles 12 int64 (c1[4] sp[8]); soff is the prefix sum of slots.
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
#define F_SIDE 8
#define F_PAIR 16

#define RAW_PAIR 0
#define RAW_PRE 8
#define RAW_MID 16
#define RAW_POST 24
#define RAW_TRI 32
#define RAW_STAR4 128

#define CENTRE_STATE 10
#define TRI_STATE 12

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
            while (e0[s].t < e.t - delta) {
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

__device__ __forceinline__ int label(unsigned char f) { return ((f & F_SIDE) >> 2) | (f & F_IN); }

extern "C" __global__ void count3Triangles(const long long *off, const long long *soff, const Ev *ev,
                                           long long *scratch, unsigned long long *raw, long long n,
                                           long long delta) {
    __shared__ unsigned long long acc[96];
    for (int k = threadIdx.x; k < 96; k += blockDim.x) acc[k] = 0;
    __syncthreads();
    long long loc[96];
    for (int k = 0; k < 96; k++) loc[k] = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const Ev *e0 = ev + off[i];
        long long len = off[i + 1] - off[i];
        long long *st = scratch + soff[i] * TRI_STATE;
        for (long long k = 0; k < (soff[i + 1] - soff[i]) * TRI_STATE; k++) st[k] = 0;
        long long cross[16];
        for (int k = 0; k < 16; k++) cross[k] = 0;
        long long pk[2] = {0, 0}, ps[2] = {0, 0};
        long long s = 0;
        for (long long k = 0; k < len; k++) {
            Ev e = e0[k];
            while (e0[s].t < e.t - delta) {
                Ev a = e0[s];
                if (a.flags & F_PAIR) {
                    ps[a.flags & F_IN]++;
                } else {
                    int la = label(a.flags);
                    long long *c1 = st + (long long)a.local * TRI_STATE, *sp = c1 + 4;
                    c1[la]--;
                    int o = ((la >> 1) ^ 1) * 2;
                    cross[la * 4 + o] -= c1[o];
                    cross[la * 4 + o + 1] -= c1[o + 1];
                    sp[la * 2] -= ps[0];
                    sp[la * 2 + 1] -= ps[1];
                }
                s++;
            }
            if (e.flags & F_PAIR) {
                int dk = e.flags & F_IN;
                if (e.flags & F_COUNTED) {
                    int base = 2 * 32 + 16 * dk;
                    for (int l1 = 0; l1 < 4; l1++) {
                        int o = ((l1 >> 1) ^ 1) * 2;
                        loc[base + 4 * l1 + o] += cross[l1 * 4 + o];
                        loc[base + 4 * l1 + o + 1] += cross[l1 * 4 + o + 1];
                    }
                }
                pk[dk]++;
                continue;
            }
            int lk = label(e.flags);
            long long *c1 = st + (long long)e.local * TRI_STATE, *sp = c1 + 4;
            int o = ((lk >> 1) ^ 1) * 2;
            if (e.flags & F_COUNTED) {
                for (int l = o; l < o + 2; l++) {
                    for (int d = 0; d < 2; d++) {
                        loc[16 * d + 4 * l + lk] += sp[l * 2 + d] - c1[l] * ps[d];
                        loc[32 + 16 * d + 4 * l + lk] += c1[l] * pk[d] - sp[l * 2 + d];
                    }
                }
            }
            cross[o * 4 + lk] += c1[o];
            cross[(o + 1) * 4 + lk] += c1[o + 1];
            c1[lk]++;
            sp[lk * 2] += pk[0];
            sp[lk * 2 + 1] += pk[1];
        }
    }
    flush(acc, loc, 96, RAW_TRI, 96, 0, raw);
}

// kernels/count3.cu: the centre pass of package motif/count3 (SNAP's 36
// three-edge temporal motifs counted, not enumerated: the two-node and
// star cells; the triangle pass stays on the host). Each thread runs whole
// sequences, exactly as count3's scanCentre does (see its comment for the
// formulas): a sequence is a centre's incident edges in window-position
// order. The host sorts sequences longest first so a warp's threads get
// similar lengths.
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

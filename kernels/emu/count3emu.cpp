// count3emu runs kernels/count3.cu's counting over a window (the c3*
// kernels) on the host, one thread, in the order gpu/count3win_cuda.go
// launches them, with std::stable_sort for the device's radix sorts and a
// loop for its scans: the kernels' logic checked without a device
// (gpu's TestCount3KernelsOnHost builds it with the host's C++ compiler
// and compares its counters with count3's). Keep it in step with
// winCount.run, centres and triangles.
//
// Input (stdin): n verts delta lo mask stars small triangles Lc LT, then n
// lines "src dst t [counted]" (the window's edges from its first, in
// position order; counted, with mask = 1, is the root mask's bit; lo is
// the scope's start relative to the first). Output: count3.Raw's 176
// counters, one a line.
#include "shim.h"
#include "../count3.cu"

typedef std::vector<u32> V32;
typedef std::vector<i64> V64;

static void sortBy(V32 &keys, V64 &vals, i64 n) {
    V64 idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](i64 a, i64 b) { return keys[a] < keys[b]; });
    V32 k2(n);
    V64 v2(n);
    for (i64 i = 0; i < n; i++) k2[i] = keys[idx[i]], v2[i] = vals[idx[i]];
    std::copy(k2.begin(), k2.end(), keys.begin());
    std::copy(v2.begin(), v2.end(), vals.begin());
}

static void scan(const u32 *in, u32 *out, i64 n) {
    u32 s = 0;
    for (i64 i = 0; i < n; i++) {
        u32 v = in[i];
        out[i] = s;
        s += v;
    }
}

int main() {
    i64 n, verts, delta, lo, hasMask, stars, small, tri, Lc, LT;
    if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &n, &verts, &delta, &lo, &hasMask, &stars, &small,
              &tri, &Lc, &LT) != 10)
        return 2;
    V32 src(n + 1), dst(n + 1);
    V64 t(n + 1);
    std::vector<unsigned char> mask(n + 1);
    for (i64 k = 0; k < n; k++) {
        int m = 1;
        if (scanf("%u %u %lld", &src[k], &dst[k], &t[k]) != 3 || (hasMask && scanf("%d", &m) != 1)) return 2;
        mask[k] = (unsigned char)m;
    }
    std::vector<unsigned long long> raw(176, 0);
    V32 keys(2 * n + 1), loops(1, 0);
    V64 vals(2 * n + 1);
    c3Entries(src.data(), dst.data(), 0, n, verts, keys.data(), vals.data(), loops.data());
    sortBy(keys, vals, 2 * n);
    i64 n2 = 2 * n - 2 * (i64)loops[0];
    if (n2 > 0) {
        V32 coff(verts + 1);
        c3Offsets(keys.data(), n2, verts, coff.data());
        V64 At(n2);
        V32 Apf(n2), Aother(n2);
        c3Gather(vals.data(), n2, keys.data(), src.data(), dst.data(), t.data(), 0, 0, lo,
                 hasMask ? mask.data() + lo : 0, At.data(), Apf.data(), Aother.data());
        V32 Acentre(keys.begin(), keys.begin() + n2);
        if (stars || small) {
            V32 np(verts + 1), pieceOff(verts + 1);
            c3PieceCount(coff.data(), verts, Lc, np.data());
            scan(np.data(), pieceOff.data(), verts + 1);
            i64 NP = pieceOff[verts];
            if (NP > 0) {
                V32 pfrom(NP), pcnt(NP), pto(NP), plen(NP + 1), poff(NP + 1);
                c3Pieces(coff.data(), pieceOff.data(), verts, NP, At.data(), delta, Lc, pfrom.data(), pcnt.data(),
                         pto.data(), plen.data());
                scan(plen.data(), poff.data(), NP + 1);
                i64 nP = poff[NP];
                V32 pk(nP), PA(nP), Pq(nP);
                V64 pv(nP);
                c3PFill(poff.data(), NP, nP, pfrom.data(), Aother.data(), pk.data(), pv.data(), PA.data(), Pq.data());
                sortBy(pk, pv, nP);
                c3KeyOf(pv.data(), nP, Pq.data(), pk.data());
                sortBy(pk, pv, nP);
                V32 head(nP + 1), E(nP + 1), Pslot(nP);
                c3PHeads(pv.data(), nP, Pq.data(), PA.data(), Aother.data(), head.data());
                scan(head.data(), E.data(), nP + 1);
                i64 slots = E[nP];
                c3PSlots(pv.data(), nP, head.data(), E.data(), Pslot.data());
                V32 ok(NP);
                V64 order(NP), st(slots * CENTRE_STATE + 1), sm(slots * SMALL_STATE + 1);
                c3PieceKeys(pfrom.data(), pto.data(), NP, ok.data(), order.data());
                sortBy(ok, order, NP);
                c3Sweep(NP, order.data(), pfrom.data(), pcnt.data(), pto.data(), poff.data(), Pslot.data(), At.data(),
                        Apf.data(), delta, stars, small, st.data(), sm.data(), raw.data());
            }
        }
        if (tri) {
            V32 bk(n2);
            V64 bv(n2);
            c3KeyIota(Aother.data(), n2, bk.data(), bv.data());
            sortBy(bk, bv, n2);
            c3KeyOf(bv.data(), n2, Acentre.data(), bk.data());
            sortBy(bk, bv, n2);
            V64 Bt(n2);
            V32 Bpf(n2), Bother(n2), head(n2 + 1), fin(n2 + 1), fc(n2 + 1), fci(n2 + 1), E(n2 + 1);
            c3BGather(bv.data(), n2, Acentre.data(), Aother.data(), At.data(), Apf.data(), Bt.data(), Bpf.data(),
                      Bother.data(), head.data(), fin.data(), fc.data(), fci.data());
            scan(head.data(), E.data(), n2 + 1);
            scan(fin.data(), fin.data(), n2 + 1);
            scan(fc.data(), fc.data(), n2 + 1);
            scan(fci.data(), fci.data(), n2 + 1);
            i64 G = E[n2];
            V32 gs(G + 1), fw(G + 1), fidx(G + 1);
            c3Groups(head.data(), E.data(), n2, gs.data());
            c3Forward(gs.data(), G, bk.data(), Bother.data(), coff.data(), E.data(), fw.data());
            scan(fw.data(), fidx.data(), G + 1);
            i64 FG = fidx[G];
            if (FG > 0) {
                V32 Fg(FG), Fv(FG), foff(verts + 1), tcount(FG + 1), toff(FG + 1);
                std::vector<u64> gmask(G);
                c3FFill(fw.data(), fidx.data(), G, gs.data(), Bother.data(), Fg.data(), Fv.data());
                c3FOff(coff.data(), E.data(), fidx.data(), verts, foff.data());
                c3Masks(gs.data(), G, Bt.data(), t[0], delta > 1 ? delta : 1, gmask.data());
                c3List(0, Fg.data(), Fv.data(), FG, foff.data(), gs.data(), bk.data(), Bt.data(), gmask.data(), delta,
                       tcount.data(), 0, 0, 0, LT);
                scan(tcount.data(), toff.data(), FG + 1);
                i64 T = toff[FG];
                if (T > 0) {
                    std::vector<uint4> tr(T);
                    V32 tpc(T + 1), tpoff(T + 1);
                    c3List(1, Fg.data(), Fv.data(), FG, foff.data(), gs.data(), bk.data(), Bt.data(), gmask.data(),
                           delta, 0, toff.data(), tr.data(), tpc.data(), LT);
                    scan(tpc.data(), tpoff.data(), T + 1);
                    i64 tasks = tpoff[T];
                    V32 taskTri(tasks), tk(tasks);
                    V64 order(tasks);
                    c3Tasks(tr.data(), gs.data(), tpoff.data(), T, LT, taskTri.data(), tk.data(), order.data());
                    sortBy(tk, order, tasks);
                    c3Triangles(tr.data(), tpoff.data(), taskTri.data(), order.data(), tasks, gs.data(), Bt.data(),
                                Bpf.data(), fin.data(), fc.data(), fci.data(), delta, LT, raw.data());
                }
            }
        }
    }
    for (int i = 0; i < 176; i++) printf("%lld\n", (long long)raw[i]);
    return 0;
}

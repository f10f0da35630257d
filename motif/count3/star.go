package count3

// nbrState is the centre pass's per-neighbour state over the δ window W
// (the centre's edges before the current one, no older than δ):
// c1[d] edges with the neighbour by direction, pp[2*d1+d2] ordered pairs
// of them, and sp[2*d+e] the sum, over its edges of direction d, of the
// number of the centre's edges of direction e before that edge (a prefix
// count, absolute within the sequence).
type nbrState struct {
	c1     [2]int64
	pp, sp [4]int64
}

// scanCentre adds the two-node and star triples ending at each counted
// edge of one centre's sequence. st has one zeroed entry per slot.
//
// For the current (last) edge k with neighbour v, over W = [s, k):
//   - x-x-y: same-neighbour pairs in W not on v: Σpp − pp[v];
//   - x-y-x: pairs (a, b), a on v, b between a and k not on v: for each a,
//     prefix(k) − prefix(a+1), summed through sp, minus pp[v];
//   - y-x-x: pairs (a, b), b on v, a in W before b not on v: for each b,
//     prefix(b) − prefix(s), summed through sp, minus pp[v];
//   - two-node: pp[v], counted at the lower-id end of the pair only;
//   - four-node stars (three distinct neighbours): every pair in W (p2,
//     kept like pp over all neighbours) minus the four kinds above.
func scanCentre(ev []Event, st []nbrState, delta int64, raw *Raw) {
	var spp, p2 [4]int64
	var pk, ps [2]int64 // edges by direction before k, before s
	s := 0
	for k := range ev {
		e := &ev[k]
		for ev[s].T < e.T-delta {
			a := &ev[s]
			da := int(a.Flags & fIn)
			n := &st[a.Local]
			n.c1[da]--
			for d := range 2 {
				p2[da*2+d] -= pk[d] - ps[d] - b2i(d == da)
				n.pp[da*2+d] -= n.c1[d]
				spp[da*2+d] -= n.c1[d]
				n.sp[da*2+d] -= ps[d]
			}
			ps[da]++
			s++
		}
		dk := int(e.Flags & fIn)
		n := &st[e.Local]
		if e.Flags&fCounted != 0 {
			for d1 := range 2 {
				for d2 := range 2 {
					i := d1*2 + d2
					o := i*2 + dk
					p := n.pp[i]
					if e.Flags&fHigher != 0 {
						raw[rawPair+o] += p
					}
					raw[rawPre+o] += spp[i] - p
					mid := n.c1[d1]*pk[d2] - n.sp[i] - p
					if d1 == d2 {
						mid -= n.c1[d1]
					}
					raw[rawMid+o] += mid
					post := n.sp[d2*2+d1] - n.c1[d2]*ps[d1] - p
					raw[rawPost+o] += post
					raw[rawStar4+o] += p2[i] - spp[i] - mid - post
				}
			}
		}
		for d := range 2 {
			p2[d*2+dk] += pk[d] - ps[d]
			n.pp[d*2+dk] += n.c1[d]
			spp[d*2+dk] += n.c1[d]
		}
		n.c1[dk]++
		n.sp[dk*2] += pk[0]
		n.sp[dk*2+1] += pk[1]
		pk[dk]++
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

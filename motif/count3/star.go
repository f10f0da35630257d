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
//
// delta is not negative (Count and CountSequences check), so W's start
// never passes k.
func scanCentre(ev []Event, st []nbrState, delta int64, raw *Raw) {
	var spp, p2 [4]int64
	var pk, ps [2]int64 // edges by direction before k, before s
	s := 0
	for k := range ev {
		e := &ev[k]
		for apart(ev[s].T, e.T, delta) {
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
			// The loop over (d1, d2) = i written out: i = 2*d1 + d2, raw
			// index o = 2*i + dk, read through r (raw from dk on).
			c0, c1 := n.c1[0], n.c1[1]
			pp, sp := &n.pp, &n.sp
			mid := [4]int64{
				c0*pk[0] - sp[0] - pp[0] - c0,
				c0*pk[1] - sp[1] - pp[1],
				c1*pk[0] - sp[2] - pp[2],
				c1*pk[1] - sp[3] - pp[3] - c1,
			}
			post := [4]int64{
				sp[0] - c0*ps[0] - pp[0],
				sp[2] - c1*ps[0] - pp[1],
				sp[1] - c0*ps[1] - pp[2],
				sp[3] - c1*ps[1] - pp[3],
			}
			r := (*[RawLen - 1]int64)(raw[dk:])
			if e.Flags&fHigher != 0 {
				r[rawPair], r[rawPair+2], r[rawPair+4], r[rawPair+6] = r[rawPair]+pp[0], r[rawPair+2]+pp[1], r[rawPair+4]+pp[2], r[rawPair+6]+pp[3]
			}
			for i := range 4 {
				o := 2 * i
				r[rawPre+o] += spp[i] - pp[i]
				r[rawMid+o] += mid[i]
				r[rawPost+o] += post[i]
				r[rawStar4+o] += p2[i] - spp[i] - mid[i] - post[i]
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

package count3

// smallState is scanSmall's per-neighbour state over the δ window W (the
// centre's edges before the current one, no older than δ): the
// neighbour's edges in W by direction (c1), and its ordered pairs (pp,
// 2*d1 + d2) and triples (ppp, 4*d1 + 2*d2 + d3) of edges in W.
type smallState struct {
	c1  [2]int64
	pp  [4]int64
	ppp [8]int64
}

// scanSmall adds the Small family's sequences ending at each counted edge
// of one centre's sequence: for the current (last) edge k with neighbour
// v and direction dk, over W = [s, k):
//   - wedges: every edge of W not on v (the centre's two distinct
//     neighbours), by direction;
//   - two-node pairs and four-edge sequences: v's edges and triples in W,
//     counted at the lower-id end of the pair only (fHigher).
//
// This is Paranjape, Benson and Leskovec's sliding-window counter for a
// sequence of labels, per neighbour: an edge entering W extends the
// neighbour's pairs and triples that end before it; the edge leaving W is
// the earliest of its neighbour's too, so it takes away the pairs and
// triples that start with it — the neighbour's edges and pairs left in W,
// once its own counts are updated, all lie after it.
//
// delta is not negative, as for scanCentre.
func scanSmall(ev []Event, st []smallState, delta int64, raw *Raw) {
	var w1 [2]int64 // edges in W by direction
	s := 0
	for k := range ev {
		e := &ev[k]
		for apart(ev[s].T, e.T, delta) {
			a := &ev[s]
			da := int(a.Flags & fIn)
			n := &st[a.Local]
			w1[da]--
			n.c1[da]--
			for d := range 2 {
				n.pp[2*da+d] -= n.c1[d]
			}
			for i := range 4 {
				n.ppp[4*da+i] -= n.pp[i]
			}
			s++
		}
		dk := int(e.Flags & fIn)
		n := &st[e.Local]
		if e.Flags&fCounted != 0 {
			for d := range 2 {
				raw[rawWedge+2*d+dk] += w1[d] - n.c1[d]
			}
			if e.Flags&fHigher != 0 {
				for d := range 2 {
					raw[rawPair2+2*d+dk] += n.c1[d]
				}
				for i := range 8 {
					raw[rawPair4+2*i+dk] += n.ppp[i]
				}
			}
		}
		for i := range 4 {
			n.ppp[2*i+dk] += n.pp[i]
		}
		for d := range 2 {
			n.pp[2*d+dk] += n.c1[d]
		}
		n.c1[dk]++
		w1[dk]++
	}
}

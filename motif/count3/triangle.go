package count3

// triState is the triangle pass's per-third-node state over the δ window:
// c1[l] edges by label (2*side + dir) and sp[2*l+d] the sum, over its
// edges of label l, of the number of the pair's own edges of direction d
// before that edge.
type triState struct {
	c1 [4]int64
	sp [8]int64
}

func label(f uint8) int { return int(f&fSide)>>2 | int(f&fIn) }

// scanGroup adds the triangle triples ending at each counted edge of one
// assigned pair's sequence: the pair's edges (fPair) merged with the
// edges between its ends and each of its triangles' third nodes (Local =
// the third node's slot). st has one zeroed entry per slot.
//
// A triple has one pair edge and one edge on each side of the same third
// node w. Ending at a pair edge: the pairs of w-edges in the window with
// opposite sides (cross). Ending at a w-edge k: the pair edge first (for
// each w-edge b on the other side in the window, the pair edges between
// the window start and b) or in the middle (for each such a, the pair
// edges between a and k), both summed through sp.
func scanGroup(ev []Event, st []triState, delta int64, raw *Raw) {
	var cross [16]int64 // [4*l1+l2]: w-edge pairs in the window, l1 before l2, opposite sides
	var pk, ps [2]int64 // pair edges by direction before k, before the window start s
	s := 0
	for k := range ev {
		e := &ev[k]
		for ev[s].T < e.T-delta {
			a := &ev[s]
			if a.Flags&fPair != 0 {
				ps[a.Flags&fIn]++
			} else {
				la := label(a.Flags)
				n := &st[a.Local]
				n.c1[la]--
				o := (la>>1 ^ 1) * 2
				cross[la*4+o] -= n.c1[o]
				cross[la*4+o+1] -= n.c1[o+1]
				n.sp[la*2] -= ps[0]
				n.sp[la*2+1] -= ps[1]
			}
			s++
		}
		if e.Flags&fPair != 0 {
			dk := int(e.Flags & fIn)
			if e.Flags&fCounted != 0 {
				base := rawTri + 2*32 + 16*dk
				for l1 := range 4 {
					o := (l1>>1 ^ 1) * 2
					raw[base+4*l1+o] += cross[l1*4+o]
					raw[base+4*l1+o+1] += cross[l1*4+o+1]
				}
			}
			pk[dk]++
			continue
		}
		lk := label(e.Flags)
		n := &st[e.Local]
		o := (lk>>1 ^ 1) * 2
		if e.Flags&fCounted != 0 {
			for l := o; l < o+2; l++ {
				for d := range 2 {
					raw[rawTri+16*d+4*l+lk] += n.sp[l*2+d] - n.c1[l]*ps[d]
					raw[rawTri+32+16*d+4*l+lk] += n.c1[l]*pk[d] - n.sp[l*2+d]
				}
			}
		}
		cross[o*4+lk] += n.c1[o]
		cross[(o+1)*4+lk] += n.c1[o+1]
		n.c1[lk]++
		n.sp[lk*2] += pk[0]
		n.sp[lk*2+1] += pk[1]
	}
}

package gpu

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// TestPlanLayoutMatchesKernel evaluates the layout #defines of
// kernels/temporal.cu and compares them with the Go constants, so an edit
// on one side that the other misses fails here, not on a GPU.
func TestPlanLayoutMatchesKernel(t *testing.T) {
	src, err := os.ReadFile("../kernels/temporal.cu")
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^#define (\w+) (.+)$`).FindAllStringSubmatch(string(src), -1) {
		defs[m[1]] = strings.TrimSpace(m[2])
	}
	var eval func(name string) int64
	eval = func(expr string) int64 {
		expr = strings.TrimSpace(expr)
		if v, ok := defs[expr]; ok {
			return eval(v)
		}
		if strings.HasPrefix(expr, "(") && strings.HasSuffix(expr, ")") {
			return eval(expr[1 : len(expr)-1])
		}
		if i := strings.LastIndex(expr, "+"); i > 0 {
			return eval(expr[:i]) + eval(expr[i+1:])
		}
		if i := strings.LastIndex(expr, "*"); i > 0 {
			return eval(expr[:i]) * eval(expr[i+1:])
		}
		n, err := strconv.ParseInt(expr, 0, 64)
		if err != nil {
			t.Fatalf("cannot evaluate %q", expr)
		}
		return n
	}
	for name, want := range map[string]int64{
		"MAXQ": maxQueries, "PF_SIZE": pfSize, "MAXK": maxK, "MAXN": maxN, "MAXPRED": maxPred, "MAXANTI": maxAnti, "PF_LIST": pfList,
		"P_K": pK, "P_N": pN, "P_DELTA": pDelta, "P_TALLY": pTally, "P_STEPS": pSteps, "STEP_SZ": stepSize,
		"S_EDGE": sEdge, "S_FROM": sFrom, "S_TO": sTo, "S_BIND": sBind, "S_PREV": sPrev, "S_NEXT": sNext,
		"S_HOPPREV": sHopPrev, "S_HOPNEXT": sHopNext, "S_PREDMASK": sPredMask, "S_ANTIMASK": sAntiMask,
		"S_NEWNODE": sNewNode, "S_NMAPPED": sNMapped, "S_NEXTFROM": sNextFrom, "S_NEXTTO": sNextTo, "S_CLOSE": sClose,
		"S_PREVNODES": sPrevNodes, "SCAN_OUT": scanOut >> 8, "SCAN_IN": scanIn >> 8,
		"P_CLOSE": pClose, "P_COMPACT": pCompact, "P_EXPAND2": pExpand2, "P_PRESCAN": pPreScan, "PC_EDGE": pcEdge, "PC_NODE": pcNode, "PC_SEL": pcSel, "PC_PREV": pcPrev, "PC_NEXT": pcNext, "PC_RANK": pcRank,
		"RK_OUTSRC": rkOutSrc, "RK_INDST": rkInDst, "RK_INSRC": rkInSrc, "RK_OUTDST": rkOutDst,
		"P_GALLOP": pGallop, "P_RANKPICK": pRankPick, "P_EXPAND": pExpand, "P_SPLITTAIL": pSplitTail, "P_SPLITRUN": pSplitRun, "P_GUIDE": pGuide, "P_PREDS": pPreds, "PRED_SZ": predSize,
		"PR_OP": prOp, "PR_LKIND": prLKind, "PR_LINDEX": prLIndex, "PR_LCOL": prLCol, "PR_RKIND": prRKind,
		"PR_RINDEX": prRIndex, "PR_RCOL": prRCol, "PR_LISTOFF": prListOff, "PR_LISTLEN": prListLen,
		"P_ANTIS": pAntis, "ANTI_SZ": antiSize, "P_NODEORDER": pNodes, "P_CLAIM": pClaim, "P_SIZE": planLen,
		"OPK_LIT": opkLit, "OPK_LIST": opkList, "OPK_EDGE": opkEdge, "OPK_NODE": opkNode,
		"BIND_ROOT": int64(motif.BindRoot), "BIND_FROM": int64(motif.BindFrom), "BIND_TO": int64(motif.BindTo), "BIND_BOTH": int64(motif.BindBoth),
		"OP_EQ": int64(motif.OpEq), "OP_NE": int64(motif.OpNe), "OP_LT": int64(motif.OpLt), "OP_LE": int64(motif.OpLe),
		"OP_GT": int64(motif.OpGt), "OP_GE": int64(motif.OpGe), "OP_IN": int64(motif.OpIn), "OP_NOTIN": int64(motif.OpNotIn),
	} {
		if _, ok := defs[name]; !ok {
			t.Errorf("kernels/temporal.cu has no #define %s", name)
			continue
		}
		if got := eval(name); got != int64(want) {
			t.Errorf("%s: kernel %d, Go %d", name, got, want)
		}
	}
}

// TestEncodePlan checks the encoding of a plan with every feature: the
// steps' new nodes and mapped counts, predicate operands, lists, anti-edges,
// and the tally decision.
func TestEncodePlan(t *testing.T) {
	w, err := window.New(window.Schema{TimeUnit: time.Second, EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}}})
	if err != nil {
		t.Fatal(err)
	}
	q, err := motif.Builtin("M4-A")
	if err != nil {
		t.Fatal(err)
	}
	q.Delta = motif.TicksSpan(100)
	p, err := motif.Compile(q, w)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := encodePlan(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if enc.P[pK] != 4 || enc.P[pN] != 4 || enc.P[pDelta] != 100 {
		t.Fatalf("header: %v", enc.P[:4])
	}
	mapped := 0
	antis := 0
	for d, st := range p.Steps {
		b := pSteps + d*stepSize
		if enc.P[b+sEdge] != int64(st.Edge) || enc.P[b+sBind] != int64(st.Bind) || enc.P[b+sNMapped] != int64(mapped) {
			t.Errorf("step %d: %v", d, enc.P[b:b+stepSize])
		}
		if d == 0 {
			mapped = 2
		} else if enc.P[b+sNewNode] >= 0 {
			mapped++
		}
		antis += len(st.Antis)
		if len(st.Antis) > 0 && enc.P[b+sAntiMask] == 0 {
			t.Errorf("step %d has anti-edges but no mask", d)
		}
	}
	if mapped != 4 || antis != 1 {
		t.Errorf("mapped %d nodes, %d anti-edges", mapped, antis)
	}
	// The last step of M4-A carries no check in this plan order iff tally.
	last := p.Steps[len(p.Steps)-1]
	if want := int64(0); len(last.Preds)+len(last.Antis) == 0 {
		want = 1
		if enc.P[pTally] != want {
			t.Errorf("tally %d, want %d", enc.P[pTally], want)
		}
	}
	enum, _ := encodePlan(p, false)
	if enum.P[pTally] != 0 {
		t.Error("enumerate mode must not tally")
	}
	big := &motif.Query{Name: "big", Delta: motif.TicksSpan(10)}
	for i := 0; i <= maxK; i++ {
		big.Nodes = append(big.Nodes, motif.Node{Name: strconv.Itoa(i)})
	}
	for i := 0; i < maxK+1; i++ {
		big.Edges = append(big.Edges, motif.Edge{From: i, To: i + 1})
	}
	big.Nodes = append(big.Nodes, motif.Node{Name: "x"})
	if pb, err := motif.Compile(big, w); err == nil {
		if _, err := encodePlan(pb, true); err == nil {
			t.Error("a 9-edge plan must be unsupported")
		}
	}
}

// TestClosePrune checks the closing-edge pruning's layout for every
// built-in motif: the chosen closing step, its anchor (the endpoint mapped
// first, two or more steps before), the matched edges around the closing
// edge once the anchor is mapped (the nearest ones, so every match's
// closing edge lies between them), the rank of the upper one in the
// anchor's list, and each step's code (a step between checks the side of
// its edge the closing edge lies on in time). The kernel drops a partial
// match only when these say no closing edge can follow, so a wrong slot
// here would lose matches on the device.
func TestClosePrune(t *testing.T) {
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{ // closing step, anchor step
		"M3": {2, 0}, "M4": {3, 0}, "M7": {3, 1}, "M10": {4, 1}, "M11": {4, 0}, "M12": {3, 0}, "M13": {3, 0},
		"M1": {-1, -1}, "M5": {-1, -1},
	}
	for _, name := range motif.BuiltinNames() {
		q, err := motif.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.TicksSpan(100)
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := encodePlan(p, true)
		if err != nil {
			continue
		}
		code := func(d int) int64 { return enc.P[pSteps+d*stepSize+sClose] }
		ce := int(enc.P[pClose+pcEdge])
		sc, sa := -1, -1
		for d, st := range p.Steps {
			if ce >= 0 && st.Edge == ce {
				sc = d
			}
			if code(d) == closeAnchor {
				sa = d
			}
		}
		if w, ok := want[name]; ok && (w[0] != sc || w[1] != sa) {
			t.Errorf("%s: closing step %d, anchor step %d; want %v", name, sc, sa, w)
		}
		if ce < 0 {
			for d := range p.Steps {
				if code(d) != closeNone {
					t.Errorf("%s: step %d code %d without a closing step", name, d, code(d))
				}
			}
			continue
		}
		if sc < 0 || sa < 0 || sc-sa < 2 || p.Steps[sc].Bind != motif.BindBoth {
			t.Fatalf("%s: closing step %d, anchor step %d\n%s", name, sc, sa, p)
		}
		e := q.Edges[ce]
		anchor := int(enc.P[pClose+pcNode])
		firstStep := func(n int) int {
			for d, st := range p.Steps {
				if st.From == n || st.To == n {
					return d
				}
			}
			return -1
		}
		if (anchor != e.From && anchor != e.To) || firstStep(anchor) != sa || firstStep(e.From+e.To-anchor) < sa {
			t.Errorf("%s: anchor node %d of edge %d->%d, mapped at %d", name, anchor, e.From, e.To, firstStep(anchor))
		}
		if sel := enc.P[pClose+pcSel]; (sel == 0) != (anchor == e.From) {
			t.Errorf("%s: anchor %d in list %d of edge %d->%d", name, anchor, sel, e.From, e.To)
		}
		prev, next := -1, len(q.Edges)
		for _, st := range p.Steps[:sa+1] {
			if st.Edge < ce {
				prev = max(prev, st.Edge)
			} else if st.Edge > ce {
				next = min(next, st.Edge)
			}
		}
		if enc.P[pClose+pcPrev] != int64(prev) || enc.P[pClose+pcNext] != int64(next) || next >= len(q.Edges) {
			t.Errorf("%s: around edge %d: %d, %d; want %d, %d", name, ce, enc.P[pClose+pcPrev], enc.P[pClose+pcNext], prev, next)
		}
		ne := q.Edges[next]
		rk := map[[2]bool]int64{{true, true}: rkOutSrc, {true, false}: rkOutDst, {false, false}: rkInDst, {false, true}: rkInSrc}
		wantRank := int64(-1)
		if anchor == ne.From || anchor == ne.To {
			wantRank = rk[[2]bool{anchor == e.From, anchor == ne.From}]
		}
		if enc.P[pClose+pcRank] != wantRank {
			t.Errorf("%s: rank %d, want %d", name, enc.P[pClose+pcRank], wantRank)
		}
		for d := range p.Steps {
			c := int64(closeNone)
			switch {
			case d == sa:
				c = closeAnchor
			case d > sa && d < sc && p.Steps[d].Edge > ce:
				c = closeAfter
			case d > sa && d < sc:
				c = closeBefore
			}
			if code(d) != c {
				t.Errorf("%s: step %d (edge %d, closing edge %d) code %d, want %d", name, d, p.Steps[d].Edge, ce, code(d), c)
			}
		}
		enc.noClosePrune()
		for d := range p.Steps {
			if code(d) != closeNone || enc.P[pClose+pcEdge] != -1 {
				t.Errorf("%s: pruning left on", name)
			}
		}
	}
}

// TestKernelChoice: the mining kernel build the host launches per built-in
// motif (delta 3600, the engine's encoding): the pruning's build (mine6p)
// only for the plans whose pruning pays (closePays: anchor at the root,
// closing edge in the anchor's other list than the root's), the plain build
// for every other plan; with the pruning off, forced on every prunable
// plan, and for batches (one launch: the pruning's
// build when one of its plans has it). Every name chosen is a kernel of the
// module (kernelNames, checked against the PTX).
func TestKernelChoice(t *testing.T) {
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]*motif.Plan{}
	for _, name := range []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11", "M12", "M13", "M4-A"} {
		q, err := motif.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.TicksSpan(3600)
		if plans[name], err = motif.Compile(q, w); err != nil {
			t.Fatal(err)
		}
	}
	pick := func(o tuning, batch bool, names ...string) string {
		t.Helper()
		o = o.withDefaults()
		prune := false
		for _, n := range names {
			enc, err := o.encode(plans[n], true)
			if err != nil {
				t.Fatal(err)
			}
			prune = prune || enc.pruned()
		}
		k := mineKernel(batch, prune)
		if !slices.Contains(kernelNames, k) {
			t.Errorf("%v: kernel %s is not in the module", names, k)
		}
		return k
	}
	pays := map[string]bool{"M3": true, "M4": true, "M9": true, "M11": true, "M12": true, "M4-A": true}
	prunable := map[string]bool{"M3": true, "M4": true, "M7": true, "M9": true, "M10": true, "M11": true, "M12": true, "M13": true, "M4-A": true}
	for name := range plans {
		want := map[bool]string{true: "mine6p", false: "mine6"}
		for _, c := range []struct {
			what string
			o    tuning
			want string
		}{
			{"default", tuning{}, want[pays[name]]},
			{"NoClosePrune", tuning{NoClosePrune: true}, "mine6"},
			{"ClosePruneAll", tuning{ClosePruneAll: true}, want[prunable[name]]},
		} {
			if got := pick(c.o, false, name); got != c.want {
				t.Errorf("%s, %s: kernel %s, want %s", name, c.what, got, c.want)
			}
		}
		// The encoding itself: pruning slots only where the build prunes.
		enc, _ := tuning{}.withDefaults().encode(plans[name], true)
		if enc.pruned() != pays[name] || closePays(plans[name], enc) != pays[name] {
			t.Errorf("%s: pruned %v, closePays %v; want %v", name, enc.pruned(), closePays(plans[name], enc), pays[name])
		}
	}
	// expand2: by default on the plans of four edges or more (count mode)
	// but M10 (its expanded step closes a triangle), on launches of 2^20
	// roots or more; with Expand2All on every such plan and launch; never
	// in enumerate mode or with Expand2Run negative. Its build: mine6x, or
	// mine6px where the plan keeps the pruning.
	applies := func(p *motif.Plan, enc *encodedPlan) bool { return p.K() >= 4 && enc.P[pTally] != 0 }
	for name, p := range plans {
		for _, all := range []bool{false, true} {
			o := tuning{Expand2All: all}.withDefaults()
			enc, err := o.encode(p, true)
			if err != nil {
				t.Fatal(err)
			}
			want := applies(p, enc) && (all || name != "M10")
			if enc.expanded2() != want || (want && enc.P[pExpand2] != defaultExpand2Run) {
				t.Errorf("%s, all %v: expanded2 %v (run %d), want %v", name, all, enc.expanded2(), enc.P[pExpand2], want)
			}
			if roots := map[bool]int64{false: defaultExpand2Roots, true: 0}[all]; o.Expand2Roots != roots {
				t.Errorf("all %v: Expand2Roots %d, want %d", all, o.Expand2Roots, roots)
			}
			want2 := "mine6x"
			if pays[name] {
				want2 = "mine6px"
			}
			if got := mineKernelX(enc.pruned()); got != want2 || !slices.Contains(kernelNames, got) {
				t.Errorf("%s, expand2: kernel %q, want %s", name, got, want2)
			}
			if enc, _ := o.encode(p, false); enc.expanded2() {
				t.Errorf("%s: expand2 in enumerate mode", name)
			}
		}
		if enc, _ := (tuning{Expand2Run: -1, Expand2All: true}).withDefaults().encode(p, true); enc.expanded2() {
			t.Errorf("%s: expand2 with Expand2Run -1", name)
		}
	}
	if enc, _ := (tuning{Expand2All: true, Expand2Run: 64}).withDefaults().encode(plans["M10"], true); enc.P[pExpand2] != 64 {
		t.Errorf("M10 with Expand2All, Expand2Run 64: P_EXPAND2 %d, want 64", enc.P[pExpand2])
	}
	// The prescan of closing runs walked depth-first: 16 entries by
	// default, as set, never (0) when negative; in both modes.
	for _, c := range []struct{ set, want int64 }{{0, defaultPreScan}, {4, 4}, {-1, 0}} {
		for _, count := range []bool{true, false} {
			if enc, _ := (tuning{PreScan: int(c.set)}).withDefaults().encode(plans["M10"], count); enc.P[pPreScan] != c.want {
				t.Errorf("PreScan %d, count %v: P_PRESCAN %d, want %d", c.set, count, enc.P[pPreScan], c.want)
			}
		}
	}
	for _, c := range []struct {
		o     tuning
		names []string
		want  string
	}{
		{tuning{}, []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10"}, "mineq6p"}, // BatchOverWindow's ten
		{tuning{}, []string{"M1", "M2", "M5", "M6", "M7", "M8", "M10", "M13"}, "mineq6"},
		{tuning{ClosePruneAll: true}, []string{"M1", "M7"}, "mineq6p"},
		{tuning{NoClosePrune: true}, []string{"M3", "M11"}, "mineq6"},
	} {
		if got := pick(c.o, true, c.names...); got != c.want {
			t.Errorf("batch %v %+v: kernel %s, want %s", c.names, c.o, got, c.want)
		}
	}
}

// TestClosePruneChoice: where a plan has two closing steps the pruning
// could serve, closePrune takes the one mapped longest before it (M10's
// 1->2, anchor mapped at step 1: closePays says no), or with rootFirst
// the one whose anchor is the root's endpoint with the closing edge in its
// other list (M10's triangle edge 3->1, anchor mapped by the root).
func TestClosePruneChoice(t *testing.T) {
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := compileBuiltin(t, w, "M10", 100)
	for _, c := range []struct {
		rootFirst    bool
		step, anchor int
		pays         bool
	}{{false, 4, 1, false}, {true, 2, 0, true}} {
		enc, err := encodePlanPruning(p, true, c.rootFirst)
		if err != nil {
			t.Fatal(err)
		}
		sc, sa := -1, -1
		for d, st := range p.Steps {
			if int64(st.Edge) == enc.P[pClose+pcEdge] {
				sc = d
			}
			if enc.P[pSteps+d*stepSize+sClose] == closeAnchor {
				sa = d
			}
		}
		if sc != c.step || sa != c.anchor || closePays(p, enc) != c.pays {
			t.Errorf("rootFirst %v: closing step %d, anchor step %d, pays %v; want %d, %d, %v\n%s", c.rootFirst, sc, sa, closePays(p, enc), c.step, c.anchor, c.pays, p)
		}
	}
}

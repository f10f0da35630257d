// Package count3 counts SNAP's 36 three-edge temporal motifs (the 2- and
// 3-node motifs of Paranjape, Benson and Leskovec, "Motifs in temporal
// networks", WSDM 2017), the four-node three-edge stars and paths, and
// the four-node four-edge cycles and paws, with counting algorithms
// instead of enumerating their matches, so its cost follows the number
// of edges, static triangles, (for paths) wedges and (for cycles) static
// four-cycles, not the number of matches.
//
// Semantics are the project's (ARCHITECTURE.md, "Semantics"): an edge
// sequence e1 < e2 < e3 in (t, seq) order — window positions — with t3 − t1 ≤ δ (inclusive),
// an injective node mapping, self-loops never matched, each sequence once.
// The counters therefore order events by window position, never by time
// alone, so tied timestamps follow arrival order exactly as the general
// engine does; time only decides who is inside the δ window.
//
// Three families partition the 36 cells:
//   - two-node motifs (4 cells): per node pair, a sliding window over the
//     pair's edges counts ordered triples by direction;
//   - stars (24 cells): per centre, one pass over the centre's incident
//     edges in position order keeps per-neighbour counters (edges, same-
//     neighbour pairs, and sums of direction prefix counts) so each edge,
//     as the LAST edge of a triple, adds its x-x-y, x-y-x and y-x-x
//     triples in O(1); the same pass yields the two-node counts and,
//     beyond SNAP's grid, the four-node stars (a centre with three
//     distinct neighbours: every pair in the window minus the other
//     kinds);
//   - triangles (8 cells): static triangles are listed in degree order
//     and each is counted as it is found: its two lighter sides' edges
//     are merged in position order and its heaviest side is read only
//     through prefix counts at searched points (pairs of light edges
//     within δ times the heavy edges before, between or after them), so
//     a triangle costs its light sides' edges near each other, not its
//     heavy side's; sides whose time spans cannot meet within δ are
//     skipped unread.
//
// Four-node, three-edge paths a–s–t–d (paths.go; cells Path4, the
// library's path4-<ranks>-<dirs>) are counted around their middle edge
// s→t in every temporal order that makes a motif (the middle edge is never
// last), per node pair {s, t} with all its edges as middle edges at once:
// every node's edges are laid out in position order with prefix counts by
// direction, and each edge's δ window is turned into positions (the first
// position more than δ after it, the first no more than δ before it), so
// the pass compares positions only. From the pair's end with fewer edges,
// each of its edges e near the pair's edges meets two ranges of the
// pair's edges (before e and after e, within δ), and for each of those
// the far end's edges that complete a path are a range of its sequence
// whose ends depend on e alone or on the middle edge alone — so a range
// of middle edges adds a count at e's ends times its size plus prefix
// sums over the pair's edges, less the pair's own edges. The far end's
// counts at e's three ends are read through cursors that only move
// forward (a bucket table per long sequence lands a jump next to its
// answer). Where the two far ends would coincide the triples are
// triangles: Count takes the triangle pass's counters off the path
// counters through a fixed map (each triangle counted once around each of
// its sides), so the path family runs the triangle pass too. A pair costs
// its lighter end's edges near it times a search: the window's wedges,
// not its paths.
//
// Four-node, four-edge motifs whose edges join four distinct node pairs
// are four-cycles and paws, triangles with a tail (four-edge paths and
// stars with a tail need five nodes): cells Cycle4 and Paw, the library's
// cycle4-<ranks>-<dirs> and paw-<ranks>-<dirs> (four.go, over pairs4.go's
// static pair lists with prefix counts, time spans and δ-wide time
// slots). Static four-cycles are listed once, from their node last in
// degree order, as pairs of wedges to the opposite node; a cycle whose
// sides' slots or spans cannot meet within δ is skipped unread, and of
// the others only the edges with an edge of every other side within δ
// are read (from the lightest side, galloping), merged in position order
// into a sliding window of one-, two- and three-edge sequences on
// distinct sides by symbol (SNAP's three-event counter one level deeper:
// an edge adds the three-edge sequences before it as four-edge ones, the
// window's first edge leaves by taking off those it starts; only the
// sequences whose second edge touches the first are kept; cycle4.go);
// a run for one or two cells (Options.CycleCells, an Engine's single
// cycle query) keeps only the sequences their patterns need
// (cycle4sparse.go). A group of many middles between a top and its
// opposite node is counted instead from its δ-close temporal wedges:
// pairs of wedges interleaved within δ are two-dimensional dominance
// counts over a Fenwick tree, one sweep of the group's positions, less
// each middle's own pairs, counted per edge by a sliding window of its
// edges' sequences (cycle4wedge.go; the cheaper method per group,
// wedgeCheaper).
// Paws go per static triangle (paw.go): three windows over its sides'
// edges give, per edge and per pattern of side order and directions, the
// triangles it starts (all, and with a counted last edge), is the middle
// of and ends; a tail is an edge of a corner to a fourth node, so the
// tails in a range are the corner's sequence less the two sides at it,
// and because δ couples only a motif's first and last edge every tail
// rank factorises into sums over single edges (tail last: Σ_e1
// starts·Qc(t1+δ) − Σ_e3 ends·Qc(e3)), read at the corners on the edge's
// own side from counts laid out per pair edge and searched at the third;
// a run for up to eight paw cells (Options.PawCells, an Engine's paw
// queries) keeps only the window pairs and tail counts their patterns
// read (pawsparse.go); where each such cell's tail hangs at the corner
// that its neighbours in time share (M3, M9: 64 cells), a triangle with a
// heavy side is walked on its two light sides only, the heavy one read
// through prefix counts and prefix sums of its corner counts, as the
// triangle pass reads its heaviest side (pawlight.go).
// The counters are labelled patterns
// mapped to cells by isomorphism against the library's motifs, which is
// also how Shape recognises a query of these shapes.
// Counting is not always the cheaper exact answer: a counting run reads
// the whole window, enumeration follows the matches. Engine chooses per
// request (choose.go) for the families with a cost model (the paths,
// four-cycles and paws): it
// enumerates a sample of the roots under a step budget of the sample's
// share of the counting run's projected cost, counts when the sample
// runs past it, and otherwise enumerates the rest and adds the two.
//
// Beyond the 36 cells, the Small family (small.go) counts every two-edge
// motif (two-node pairs; wedges: a centre with two distinct neighbours)
// and the two-node four-edge motifs over the same centre sequences, with
// per-neighbour sliding-window counters of edges, pairs and triples; it
// runs only when one of its cells is asked for.
//
// Every counter adds a triple when its last edge is processed (the
// triangle pass: through counted-edge prefix counts when the last edge is
// the heavy side's), so restricting the last edge to a position range (a
// daemon batch) or to a root mask is a test per edge: Count honours
// motif.Request's Range and RootMask.
//
// Raw counters (Raw) are indexed by family, position and direction; the
// table that maps them onto SNAP's grid is derived at start-up by testing
// each raw pattern for isomorphism against motif.SNAPGrid, and the same
// test recognises a query's shape (Shape). Engine wraps another
// motif.Engine and answers count-mode requests for the counted shapes
// from a cached grid, or hands them on where enumerating is cheaper. The
// passes run on the host's cores; a Device (package gpu,
// kernels/count3.cu) may run the centre pass over sequences the host
// builds, and a WindowDevice runs the centre and triangle passes over its
// own copy of the window (Count hands it every family but the paths).
//
// count3 reads windows; it never does I/O and never imports kafka or cu.
package count3

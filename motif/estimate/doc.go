// Package estimate estimates a motif's match count, with an interval,
// where counting it exactly is too slow: a Horvitz–Thompson estimator
// over a random sample of root edges.
//
// Every engine counts exactly the matches whose LAST edge is a given root
// (motif.Request's Range and RootMask), at a cost that follows the roots
// mined. So the count Y = Σ y_i over the roots i of a request is estimated
// by mining a Poisson sample of roots (root i is taken with probability
// π_i, independently) and summing y_i / π_i over it: unbiased for every
// motif any engine mines, anti-edges and predicates included. Its
// variance is estimated by Σ (1 − π_i) y_i² / π_i² over the sample
// (unbiased for the true variance), and the interval is the normal one,
// value ± z·√variance.
//
// The inclusion probabilities follow a cheap proxy of each root's work
// and matches (Weights: the edges within δ before it at its two
// endpoints), π_i = min(1, r·weight_i) for a scale r, so the roots of hubs
// and bursts, where the matches are, are sampled more, and the heaviest
// ones, π_i = 1, are counted exhaustively: they add no variance, which is
// what keeps the interval honest on skewed graphs. Roots with π_i = 1 are
// mined together in one call (one sum); the others one call each, since
// their counts must be known one by one.
//
// Count adapts the scale: it doubles r (or jumps to the scale the
// variance so far asks for) until the interval's half-width is at most ε
// of the value, with at least MinHits sampled roots that matched, or
// until every root is taken, where the count is exact and the interval
// zero. Samples are nested (root i is in the sample at scale r iff
// u_i < π_i(r) for a fixed uniform u_i), so a round mines only the roots
// it adds. The estimate at any fixed scale is unbiased; stopping at the
// first scale that meets ε is a data-dependent choice among them, whose
// bias is of the order of the variance over the count (well below ε;
// the tests bound it).
//
// Running is the streaming form (the daemon's estimated queries): batches
// are sampled at a scale fixed before each batch, their estimates and
// variances add up, and the scale is raised or lowered between batches
// from the running interval's width. Alerts are never raised from it.
//
// Package estimate is an algorithm core: it imports motif and window
// only, does no I/O and registers no metrics.
package estimate

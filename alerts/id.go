package alerts

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// MatchID returns the deterministic id of a match: the first 16 bytes of a
// SHA-256 over the query name and each edge's identity, in motif order.
//
// An edge's identity is (src, dst, t, seq) when its record carried a
// sequence number (HasSeq; `monitor mine` uses the file line), else
// (src, dst, t, partition, offset): both survive restarts and replays, so a
// consumer can deduplicate on the id. The same match found by `monitor
// mine` and by the daemon fed with `monitor produce` gets the same id.
func MatchID(query string, edges []Edge, hasSeq bool) string {
	h := sha256.New()
	var buf [8]byte
	put := func(v int64) {
		binary.BigEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	str := func(s string) {
		put(int64(len(s)))
		h.Write([]byte(s))
	}
	str(query)
	for _, e := range edges {
		str(e.Src)
		str(e.Dst)
		put(e.T)
		if hasSeq {
			h.Write([]byte{'s'})
			put(e.Seq)
		} else {
			h.Write([]byte{'o'})
			put(int64(e.Partition))
			put(e.Offset)
		}
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}

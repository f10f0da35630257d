package window

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// Random puts, deletes and lookups (clustered keys, the sentinel key,
// growth from empty, long churn) agree with a Go map at every step, and
// every entry is found after each backward-shift deletion.
func TestPairTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for round := range 20 {
		var tab pairTable
		if round%2 == 1 {
			tab = newPairTable(rng.IntN(100))
		}
		ref := map[uint64]int32{}
		keys := rng.IntN(2000) + 1
		key := func() uint64 {
			switch rng.IntN(10) {
			case 0:
				return emptyKey
			case 1, 2: // neighbours of one node: keys in a run
				return 7<<32 | uint64(rng.IntN(keys))
			}
			return pairKey(uint32(rng.IntN(keys)), uint32(rng.IntN(keys)))
		}
		for step := range 20000 {
			k := key()
			switch rng.IntN(3) {
			case 0, 1:
				v := rng.Int32()
				tab.put(k, v)
				ref[k] = v
			case 2:
				tab.del(k)
				delete(ref, k)
			}
			want, wok := ref[k]
			if got, ok := tab.get(k); ok != wok || got != want {
				t.Fatalf("round %d step %d: get(%x) = %d, %v; map has %d, %v", round, step, k, got, ok, want, wok)
			}
			if step%997 == 0 {
				checkPairTable(t, &tab, ref)
			}
		}
		checkPairTable(t, &tab, ref)
	}
}

func checkPairTable(t *testing.T, tab *pairTable, ref map[uint64]int32) {
	t.Helper()
	if tab.len() != len(ref) {
		t.Fatalf("len %d, map %d", tab.len(), len(ref))
	}
	for k, v := range ref {
		if got, ok := tab.get(k); !ok || got != v {
			t.Fatalf("get(%x) = %d, %v; want %d", k, got, ok, v)
		}
	}
	seen := 0
	tab.each(func(k uint64, v int32) {
		seen++
		if ref[k] != v {
			t.Fatalf("each: %x → %d; map has %d", k, v, ref[k])
		}
	})
	if seen != len(ref) {
		t.Fatalf("each visited %d entries, want %d", seen, len(ref))
	}
}

// BenchmarkPairLookup compares the pair table with the Go map it
// replaced, on 800,000 pairs of 500,000 nodes and lookups of which a
// quarter miss: ns/op per lookup, and B/entry of each structure.
//
//	go test ./window/ -run '^$' -bench PairLookup
func BenchmarkPairLookup(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 800_000
	if s := os.Getenv("PAIRS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = pairKey(rng.Uint32N(500_000), rng.Uint32N(500_000))
	}
	probes := make([]uint64, 1<<20)
	for i := range probes {
		if rng.IntN(4) == 0 {
			probes[i] = pairKey(rng.Uint32N(500_000), rng.Uint32N(500_000))
		} else {
			probes[i] = keys[rng.IntN(n)]
		}
	}
	var sink int32
	b.Run("map", func(b *testing.B) {
		m := make(map[uint64]int32, n)
		for i, k := range keys {
			m[k] = int32(i)
		}
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			sink += m[probes[i&(len(probes)-1)]]
		}
	})
	b.Run("table", func(b *testing.B) {
		tab := newPairTable(n)
		for i, k := range keys {
			tab.put(k, int32(i))
		}
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			v, _ := tab.get(probes[i&(len(probes)-1)])
			sink += v
		}
		b.ReportMetric(float64(tab.bytes())/float64(tab.len()), "B/entry")
	})
	_ = sink
}

package window

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

func TestKeysOneKeyPerName(t *testing.T) {
	k := NewKeys()
	a, sa := k.Of("a")
	b, _ := k.OfBytes([]byte("b"))
	a2, sa2 := k.OfBytes([]byte("a"))
	if a == 0 || b == 0 || a == b || a2 != a {
		t.Fatalf("keys a=%x b=%x a again=%x: want one nonzero key per name", a, b, a2)
	}
	if sa != "a" || sa2 != "a" {
		t.Fatalf("names %q %q, want the name back", sa, sa2)
	}
	if k.Len() != 2 {
		t.Fatalf("Len %d, want 2", k.Len())
	}
	for _, c := range []struct {
		x, y     Key
		same, ok bool
	}{{a, a2, true, true}, {a, b, false, true}, {0, 0, false, false}, {a, 0, false, false}} {
		if same, ok := SameNode(c.x, c.y); same != c.same || ok != c.ok {
			t.Fatalf("SameNode(%x, %x) = %v, %v; want %v, %v", c.x, c.y, same, ok, c.same, c.ok)
		}
	}
}

// TestKeysConcurrent: decoders of several partitions key the same names
// at once and agree (run with -race).
func TestKeysConcurrent(t *testing.T) {
	k := NewKeys()
	const workers, names = 8, 2000
	got := make([][]Key, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[w] = make([]Key, names)
			for i := range names {
				n := (i*7 + w*13) % names
				key, s := k.OfBytes(fmt.Appendf(nil, "n%d", n))
				if s != fmt.Sprintf("n%d", n) {
					t.Errorf("name %q for n%d", s, n)
				}
				got[w][n] = key
			}
		}()
	}
	wg.Wait()
	seen := map[Key]bool{}
	for n := range names {
		for w := 1; w < workers; w++ {
			if got[w][n] != got[0][n] {
				t.Fatalf("n%d: worker %d got key %x, worker 0 %x", n, w, got[w][n], got[0][n])
			}
		}
		if seen[got[0][n]] {
			t.Fatalf("n%d: key %x given twice", n, got[0][n])
		}
		seen[got[0][n]] = true
	}
}

// TestKeysGenerations: past the limit a new name starts a new generation,
// whose keys differ from every key of the old one.
func TestKeysGenerations(t *testing.T) {
	k := NewKeys()
	k.SetLimit(2)
	a, _ := k.Of("a")
	b, _ := k.Of("b")
	c, _ := k.Of("c") // the third name: a new generation
	a2, _ := k.Of("a")
	if a.gen() != b.gen() || c.gen() == a.gen() || a2.gen() != c.gen() {
		t.Fatalf("generations a %d b %d c %d a again %d", a.gen(), b.gen(), c.gen(), a2.gen())
	}
	if a2 == a || a2 == c {
		t.Fatalf("a's key in the new generation %x equals an old one (a %x, c %x)", a2, a, c)
	}
	if k.Len() != 2 {
		t.Fatalf("Len %d, want 2 (c and a)", k.Len())
	}
	if _, ok := SameNode(a, a2); ok {
		t.Fatalf("SameNode tells keys of two generations apart")
	}
}

// TestInternKeyMatchesIntern runs a random stream of interns (with keys
// from a dictionary that rolls over often) and releases against a twin
// dictionary interning by name only: every id must agree, including ids
// released and handed to another name, and after Shrink.
func TestInternKeyMatchesIntern(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := NewKeys()
	keys.SetLimit(40)
	keyed, plain := NewIDs(), NewIDs()
	live := map[uint32]bool{}
	for step := range 200_000 {
		switch r := rng.IntN(100); {
		case r < 70:
			name := fmt.Sprintf("v%d", rng.IntN(60))
			var k Key
			if rng.IntN(10) > 0 { // some edges come without a key
				k, name = keys.Of(name)
			}
			got, gotNew := keyed.InternKey(k, name)
			want, wantNew := plain.Intern(name)
			if got != want || gotNew != wantNew {
				t.Fatalf("step %d: %q key %x: InternKey (%d, %v), Intern (%d, %v)", step, name, k, got, gotNew, want, wantNew)
			}
			live[got] = true
		case r < 98:
			for id := range live { // one live id, released in both
				keyed.Release(id)
				plain.Release(id)
				delete(live, id)
				break
			}
		case r < 99:
			if n, m := keyed.shrink(), plain.shrink(); n != m {
				t.Fatalf("step %d: shrink %d, %d", step, n, m)
			}
		default:
			keys.SetLimit(20 + rng.IntN(40))
		}
	}
}

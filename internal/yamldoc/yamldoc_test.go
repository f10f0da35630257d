package yamldoc

import (
	"errors"
	"testing"
)

func TestRoot(t *testing.T) {
	for _, c := range []struct {
		in       string
		nilRoot  bool
		errLine  int
		second   bool
		rootKind string
	}{
		{in: "", nilRoot: true},
		{in: "~\n", nilRoot: true},
		{in: "a: 1\n", rootKind: "mapping"},
		{in: "a: &x [1]\nb: *x\n", rootKind: "mapping"},
		{in: "a: 1\n---\nb: 2\n", errLine: 2, second: true}, // the "---" line
		{in: "a: [1\nb: 2\n", errLine: 1},                   // the unclosed flow sequence
	} {
		root, err := Root([]byte(c.in))
		var ye *Error
		switch {
		case c.errLine > 0:
			if !errors.As(err, &ye) || ye.Line != c.errLine || ye.SecondDocument != c.second {
				t.Errorf("Root(%q) error = %#v; want line %d, second document %v", c.in, err, c.errLine, c.second)
			}
		case err != nil:
			t.Errorf("Root(%q) = %v", c.in, err)
		case c.nilRoot != (root == nil):
			t.Errorf("Root(%q) = %v; want nil %v", c.in, root, c.nilRoot)
		}
	}
}

// TestRootNamesTheBrokenLine checks that block errors name the line that
// breaks the block, not the block's first line (the parser's choice).
func TestRootNamesTheBrokenLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
	}{
		// line 6 is indented one space: no longer in window:, not a top-level key either
		{"kafka:\n  brokers: [a]\nwindow:\n  batch_size: 10\n  max_nodes: 5\n max_future: 1h\n", 6},
		// a list item indented less than its siblings on line 6
		{"queries:\n  - name: a\n    delta: 10\n    edges:\n      - A -> B\n     - B -> C\n", 6},
		// a key dedented into the middle of a list item's mapping on line 7
		{"queries:\n  - name: a\n    delta: 10\n    edges:\n      - A -> B\n      - B -> C\n   where: x\n", 7},
	} {
		_, err := Root([]byte(c.in))
		var ye *Error
		if !errors.As(err, &ye) || ye.Line != c.line {
			t.Errorf("Root(%q) error = %v; want line %d", c.in, err, c.line)
		}
	}
}

func TestKind(t *testing.T) {
	root, err := Root([]byte("m: {a: 1}\nl: [1]\nn: ~\ne:\ns: \"x y\"\ni: 12\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"m": "a mapping", "l": "a list", "n": "nothing", "e": "nothing", "s": `"x y"`, "i": `"12"`}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, v := root.Content[i].Value, root.Content[i+1]
		if got := Kind(v); got != want[key] {
			t.Errorf("Kind(%s) = %s; want %s", key, got, want[key])
		}
		if got, wantNull := IsNull(v), key == "n" || key == "e"; got != wantNull {
			t.Errorf("IsNull(%s) = %v; want %v", key, got, wantNull)
		}
	}
	if !IsNull(nil) {
		t.Error("IsNull(nil) = false; want true")
	}
}

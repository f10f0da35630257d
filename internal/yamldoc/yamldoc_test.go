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

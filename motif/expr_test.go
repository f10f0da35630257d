package motif

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// exprQuery is a 3-edge cycle A→B→C→A with a node named "1".
func exprQuery() *Query {
	return &Query{
		Name:  "q",
		Nodes: []Node{{"A"}, {"B"}, {"1"}},
		Edges: []Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 2, To: 0}},
		Delta: TicksSpan(10),
	}
}

// predString renders predicates compactly for comparison in tests:
// edge attributes as eN.attr (1-based), node attributes as Name.attr.
func predString(q *Query, ps []Predicate) string {
	var parts []string
	opnd := func(o Operand) string {
		switch o.Kind {
		case EdgeAttr:
			return fmt.Sprintf("e%d.%s", o.Index+1, o.Attr)
		case NodeAttr:
			return fmt.Sprintf("%s.%s", q.Nodes[o.Index].Name, o.Attr)
		case List:
			var items []string
			for _, it := range o.List {
				if it.IsStr {
					items = append(items, fmt.Sprintf("%q", it.Str))
				} else {
					items = append(items, fmt.Sprint(it.Num))
				}
			}
			return "[" + strings.Join(items, " ") + "]"
		}
		if o.IsStr {
			return fmt.Sprintf("%q", o.Str)
		}
		return fmt.Sprint(o.Num)
	}
	for _, p := range ps {
		parts = append(parts, opnd(p.Left)+" "+p.Op.String()+" "+opnd(p.Right))
	}
	return strings.Join(parts, " && ")
}

func TestParseWhere(t *testing.T) {
	tests := []struct {
		text  string
		scope Scope
		want  string
	}{
		// every operator
		{"e1.amount == 5", QueryScope(), "e1.amount == 5"},
		{"e1.amount = 5", QueryScope(), "e1.amount == 5"},
		{"e1.amount != 5", QueryScope(), "e1.amount != 5"},
		{"e1.amount < 5", QueryScope(), "e1.amount < 5"},
		{"e1.amount <= 5", QueryScope(), "e1.amount <= 5"},
		{"e1.amount > 5", QueryScope(), "e1.amount > 5"},
		{"e1.amount >= 5", QueryScope(), "e1.amount >= 5"},
		{"e1.amount in [1, 2, 3]", QueryScope(), "e1.amount in [1 2 3]"},
		{"e1.amount in [1,]", QueryScope(), "e1.amount in [1]"},
		{"e1.cur not in ['a', \"b\"]", QueryScope(), `e1.cur not in ["a" "b"]`},
		{"e1.cur NOT IN ['a']", QueryScope(), `e1.cur not in ["a"]`},
		// numbers
		{"e2.x > -5", QueryScope(), "e2.x > -5"},
		{"e2.x > -2.5e3", QueryScope(), "e2.x > -2500"},
		{"e2.x > .5", QueryScope(), "e2.x > 0.5"},
		{"e2.x>1e6", QueryScope(), "e2.x > 1e+06"},
		// strings and escapes
		{`A.label == "acc\"t"`, QueryScope(), `A.label == "acc\"t"`},
		{`A.label == 'it\'s'`, QueryScope(), `A.label == "it's"`},
		{`A.label != ""`, QueryScope(), `A.label != ""`},
		{`A.label == "5"`, QueryScope(), `A.label == "5"`},
		// literal on the left is moved to the right
		{"5 < e1.amount", QueryScope(), "e1.amount > 5"},
		{"5 >= e1.amount", QueryScope(), "e1.amount <= 5"},
		{`"x" == A.label`, QueryScope(), `A.label == "x"`},
		// references
		{"e1.amount >= e3.amount", QueryScope(), "e1.amount >= e3.amount"},
		{"A.risk > B.risk", QueryScope(), "A.risk > B.risk"},
		{"1.risk > 0", QueryScope(), "1.risk > 0"},
		{"A.label == 'x'", EdgeScope(1), `A.label == "x"`},
		// bare attributes by scope
		{"amount > 10", QueryScope(), "e1.amount > 10 && e2.amount > 10 && e3.amount > 10"},
		{"amount > fee", QueryScope(), "e1.amount > e1.fee && e2.amount > e2.fee && e3.amount > e3.fee"},
		{"amount > e1.amount", QueryScope(), "e1.amount > e1.amount && e2.amount > e1.amount && e3.amount > e1.amount"},
		{"amount > 10", EdgeScope(1), "e2.amount > 10"},
		{"risk > 0.5", NodeScope(2), "1.risk > 0.5"},
		{"label in ['x']", NodeScope(0), `A.label in ["x"]`},
		{"f == 1", EachNodeScope(), "A.f == 1 && B.f == 1 && 1.f == 1"},
		// conjunctions, precedence and grouping
		{"e1.a > 1 && e2.b < 2", QueryScope(), "e1.a > 1 && e2.b < 2"},
		{"e1.a > 1 and e2.b < 2 AND e3.c == 3", QueryScope(), "e1.a > 1 && e2.b < 2 && e3.c == 3"},
		{"(e1.a > 1) && ((e2.b < 2 && e3.c == 3))", QueryScope(), "e1.a > 1 && e2.b < 2 && e3.c == 3"},
		{"e1.a>1&&e2.b<2", QueryScope(), "e1.a > 1 && e2.b < 2"},
		{"  e1.a  >\t1  ", QueryScope(), "e1.a > 1"},
		{"x > 1 && e1.y == 2", EdgeScope(2), "e3.x > 1 && e1.y == 2"},
	}
	for _, tt := range tests {
		q := exprQuery()
		ps, err := ParseWhere(tt.text, "where", q, tt.scope)
		if err != nil {
			t.Errorf("ParseWhere(%q) = %v", tt.text, err)
			continue
		}
		if got := predString(q, ps); got != tt.want {
			t.Errorf("ParseWhere(%q) = %s; want %s", tt.text, got, tt.want)
		}
		q.Where = ps
		if err := q.Validate(); err != nil {
			t.Errorf("ParseWhere(%q): Validate() = %v", tt.text, err)
		}
		for _, p := range ps {
			if p.Field != "where" || p.Text == "" {
				t.Errorf("ParseWhere(%q): predicate Field %q, Text %q; want Field \"where\" and the text", tt.text, p.Field, p.Text)
			}
		}
	}
}

func TestParseWhereText(t *testing.T) {
	q := exprQuery()
	ps, err := ParseWhere("(e1.a > 1)  &&  e2.b in [1, 2] and amount < 3", "f", q, EdgeScope(0))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"e1.a > 1", "e2.b in [1, 2]", "amount < 3"}
	if len(ps) != len(want) {
		t.Fatalf("got %d predicates; want %d", len(ps), len(want))
	}
	for i, p := range ps {
		if p.Text != want[i] {
			t.Errorf("predicate %d Text = %q; want %q", i, p.Text, want[i])
		}
	}
}

func TestParseWhereErrors(t *testing.T) {
	tests := []struct {
		text  string
		scope Scope
		want  string // substring of the error, column included
	}{
		{"amount >> 3", QueryScope(), `where: "amount >> 3": unexpected ">" at column 9`},
		{"", QueryScope(), "empty expression"},
		{"   ", QueryScope(), "empty expression"},
		{"amount", QueryScope(), "unexpected end of expression at column 7"},
		{"amount >", QueryScope(), "unexpected end of expression at column 9"},
		{"amount > 1 ||  amount < 0", QueryScope(), "|| is not supported at column 12"},
		{"amount > 1 or amount < 0", QueryScope(), `"or" is not supported at column 12`},
		{"amount > 1 amount < 0", QueryScope(), `unexpected "amount" at column 12; comparisons are joined with && or and`},
		{"amount > 1 &&", QueryScope(), "unexpected end of expression at column 14"},
		{"amount > 1 & x > 2", QueryScope(), `unexpected "&" at column 12; use && or and`},
		{"!(amount > 1)", QueryScope(), `unexpected "!" at column 1; negation is not supported`},
		{"amount + 1 > 2", QueryScope(), `arithmetic ("+") is not supported at column 8`},
		{"amount > e1.x * 2", QueryScope(), `arithmetic ("*") is not supported at column 15`},
		{"amount - 1 > 2", QueryScope(), `arithmetic ("-") is not supported at column 8`},
		{"amount > 12abc", QueryScope(), `invalid number "12abc" at column 10`},
		{"amount > 1.2.3", QueryScope(), `invalid number "1.2.3"`},
		{"amount > 0x10", QueryScope(), `invalid number "0x10"`},
		{"amount == 'abc", QueryScope(), "unterminated string at column 11"},
		{"amount <> 1", QueryScope(), `unexpected "<>" at column 8; use !=`},
		{"amount == #", QueryScope(), `unexpected "#" at column 11`},
		{"amount == é", QueryScope(), `unexpected "é" at column 11`},
		{"é == amount > 1", QueryScope(), `unexpected "é" at column 1`},
		{"(amount > 1", QueryScope(), `unexpected end of expression at column 12; expected ")"`},
		{"amount > 1)", QueryScope(), `unmatched ")" at column 11`},
		{"e1. > 1", QueryScope(), `expected an attribute name after "e1." at column 3`},
		{"A.b.c > 1", QueryScope(), `unexpected ".": a name is attr, eN.attr or Node.attr at column 4`},
		// in / not in
		{"amount in 5", QueryScope(), `unexpected "5" at column 11; in needs a list`},
		{"amount in []", QueryScope(), "empty list at column 12"},
		{"amount in [1, 'a']", QueryScope(), "list mixes strings and numbers at column 15"},
		{"amount in [x]", QueryScope(), `in needs a list of literals; "x" is not a number or quoted string at column 12`},
		{"amount in [1 2]", QueryScope(), `unexpected "2" at column 14; expected "," or "]" in the list`},
		{"amount not [1]", QueryScope(), `unexpected "[" at column 12; expected "in" after "not"`},
		{"5 in [1]", QueryScope(), "the left side of in must be an attribute at column 1"},
		{"amount == [1]", QueryScope(), "a list is only allowed after in / not in at column 11"},
		// types
		{"amount < 'x'", QueryScope(), `< needs numbers, not the string "x" at column 8`},
		{"'x' >= amount", QueryScope(), `>= needs numbers, not the string "x"`},
		{"1 == 1", QueryScope(), "compares two literals at column 1"},
		// references
		{"X.risk > 1", QueryScope(), `unknown node "X" at column 1; nodes: A, B, 1; edges: e1..e3`},
		{"e4.amount > 1", QueryScope(), "edge e4 out of range at column 1; edges are numbered e1..e3"},
		{"e0.amount > 1", QueryScope(), "edge e0 out of range"},
		{"e99999999999999999999.amount > 1", QueryScope(), "out of range"},
		{"a.label == 'x'", QueryScope(), `unknown node "a"`},
	}
	for _, tt := range tests {
		_, err := ParseWhere(tt.text, "where", exprQuery(), tt.scope)
		if err == nil {
			t.Errorf("ParseWhere(%q) = nil error; want %q", tt.text, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseWhere(%q) = %v; want error containing %q", tt.text, err, tt.want)
		}
		var ee *ExprError
		if !errors.As(err, &ee) || ee.Field != "where" || ee.Text != tt.text {
			t.Errorf("ParseWhere(%q) error = %#v; want *ExprError with Field and Text", tt.text, err)
		}
	}
}

func TestParseWhereAmbiguousNode(t *testing.T) {
	q := &Query{Nodes: []Node{{"e1"}, {"e2"}}, Edges: []Edge{{From: 0, To: 1}}}
	_, err := ParseWhere("e1.x > 1", "where", q, QueryScope())
	if err == nil || !strings.Contains(err.Error(), `"e1" is both a node name and an edge number`) {
		t.Errorf("ParseWhere(e1.x) with node e1 = %v; want ambiguity error", err)
	}
	// e2 is a node but not an edge of this 1-edge query: still ambiguous
	// to a reader, so it is rejected too.
	if _, err := ParseWhere("e2.x > 1", "where", q, QueryScope()); err == nil {
		t.Errorf("ParseWhere(e2.x) with node e2 = nil error; want ambiguity error")
	}
}

func TestExprErrorFormat(t *testing.T) {
	tests := []struct {
		err  ExprError
		want string
	}{
		{ExprError{Field: "queries[0].where", Text: "a >> 3", Column: 4, Msg: `unexpected ">"`}, `queries[0].where: "a >> 3": unexpected ">" at column 4`},
		{ExprError{Text: "", Msg: "empty expression"}, `"": empty expression`},
		{ExprError{Field: "f", Text: "x", Column: 1, Msg: "m", Hint: "h"}, `f: "x": m at column 1; h`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("ExprError.Error() = %s; want %s", got, tt.want)
		}
	}
}

func FuzzParseWhere(f *testing.F) {
	for _, s := range []string{
		"amount > 1000",
		"e1.amount >= e3.amount && A.label in ['x', \"y\"]",
		"(risk > 0.5) and 1.f != -2.5e3",
		"amount >> 3",
		"x not in [1, 2,]",
		"'unterminated",
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, scope uint8) {
		q := exprQuery()
		sc := []Scope{QueryScope(), EdgeScope(1), NodeScope(2), EachNodeScope()}[scope%4]
		ps, err := ParseWhere(text, "where", q, sc)
		if err != nil {
			var ee *ExprError
			if !errors.As(err, &ee) || ee.Column < 0 || ee.Column > len([]rune(text))+1 {
				t.Errorf("ParseWhere(%q) = %#v; want *ExprError with a column inside the text", text, err)
			}
			return
		}
		q.Where = ps
		if err := q.Validate(); err != nil {
			t.Errorf("ParseWhere(%q) gave predicates that fail Validate: %v", text, err)
		}
	})
}

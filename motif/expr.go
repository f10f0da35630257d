package motif

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file parses where expressions: one or more comparisons joined by
// && (or "and"), optionally grouped with parentheses.
//
//	expr    = term { ("&&" | "and") term }
//	term    = "(" expr ")" | operand op operand | operand ["not"] "in" list
//	op      = "==" | "=" | "!=" | "<" | "<=" | ">" | ">="
//	list    = "[" literal { "," literal } [","] "]"
//	operand = number | string | name | name "." attr
//
// Numbers are decimal (1000, -2.5, 1e6); strings are quoted with " or '
// (a backslash escapes the next character). A name is a bare attribute
// (see Scope), "eN.attr" (motif edge N, 1-based) or "Node.attr" (a motif
// node; "label" is the node label). There is no "||": every comparison of
// a query must hold.

// Scope says what a bare attribute name (one without "X." in front) means
// in a where expression.
type Scope struct {
	kind  scopeKind
	index int
}

type scopeKind uint8

const (
	scopeEachEdge scopeKind = iota
	scopeEdge
	scopeNode
	scopeEachNode
)

// QueryScope is the scope of a query-level where: a bare attribute means
// that attribute of every motif edge, so a comparison that uses one
// expands into one predicate per motif edge.
func QueryScope() Scope { return Scope{kind: scopeEachEdge} }

// EdgeScope is the scope of motif edge i's where (0-based): a bare
// attribute is that edge's.
func EdgeScope(i int) Scope { return Scope{kind: scopeEdge, index: i} }

// NodeScope is the scope of motif node i's where (0-based): a bare
// attribute is that node's.
func NodeScope(i int) Scope { return Scope{kind: scopeNode, index: i} }

// EachNodeScope makes a bare attribute mean that attribute of every motif
// node: a comparison that uses one expands into one predicate per node.
func EachNodeScope() Scope { return Scope{kind: scopeEachNode} }

// ExprError is a syntax or reference error in a where expression.
type ExprError struct {
	Field  string // where the expression came from, e.g. "queries[0].where"
	Text   string // the whole expression
	Column int    // 1-based column of the offending token; 0 when unknown
	Msg    string // what is wrong, e.g. `unexpected ">"`
	Hint   string // optional: what was expected instead
}

func (e *ExprError) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%q: %s", e.Text, e.Msg)
	if e.Column > 0 {
		fmt.Fprintf(&b, " at column %d", e.Column)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// ParseWhere parses a where expression of query q into predicates, one per
// comparison (more where a bare attribute expands, see QueryScope). q's
// Nodes and Edges must already be set: references are resolved and checked
// against them. Every predicate gets Field and, as Text, the comparison as
// written. Errors are *ExprError.
func ParseWhere(text, field string, q *Query, scope Scope) ([]Predicate, error) {
	if q == nil {
		return nil, &ExprError{Field: field, Text: text, Msg: "no query to resolve names against"}
	}
	return parseWhereEnv(text, field, &queryEnv{q: q, scope: scope})
}

// parseWhereEnv parses text and resolves its names with env.
func parseWhereEnv(text, field string, env exprEnv) ([]Predicate, error) {
	cmps, perr := parseExpr(text)
	if perr != nil {
		perr.Field = field
		return nil, perr
	}
	var out []Predicate
	for _, c := range cmps {
		ps, err := c.resolve(env)
		if err != nil {
			return nil, &ExprError{Field: field, Text: text, Column: err.col, Msg: err.msg, Hint: err.hint}
		}
		for _, p := range ps {
			p.Field, p.Text = field, c.text
			out = append(out, p)
		}
	}
	return out, nil
}

// ---- lexer ----

const orHint = "every comparison must hold (use separate queries, or x in [a, b])"

type exprTok uint8

const (
	tokEOF exprTok = iota
	tokNum
	tokStr
	tokName // bare or dotted name
	tokOp   // comparison operator
	tokAnd
	tokIn
	tokNot
	tokLBrack
	tokRBrack
	tokComma
	tokLParen
	tokRParen
)

type exprToken struct {
	kind     exprTok
	pos, end int // byte offsets in the source
	text     string
	op       CmpOp
	num      float64
	str      string
}

type exprLexer struct {
	src  string
	pos  int
	toks []exprToken
}

// col returns the 1-based column (in runes) of byte offset pos.
func exprCol(src string, pos int) int { return utf8.RuneCountInString(src[:pos]) + 1 }

func exprNameStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func exprNameChar(c byte) bool { return exprNameStart(c) || '0' <= c && c <= '9' }

func exprDigit(c byte) bool { return '0' <= c && c <= '9' }

func (lx *exprLexer) peekByte(off int) byte {
	if lx.pos+off < len(lx.src) {
		return lx.src[lx.pos+off]
	}
	return 0
}

func (lx *exprLexer) errAt(pos int, format string, args ...any) *ExprError {
	return &ExprError{Text: lx.src, Column: exprCol(lx.src, pos), Msg: fmt.Sprintf(format, args...)}
}

func (lx *exprLexer) hintAt(pos int, hint, format string, args ...any) *ExprError {
	e := lx.errAt(pos, format, args...)
	e.Hint = hint
	return e
}

func lexExpr(src string) ([]exprToken, *ExprError) {
	lx := &exprLexer{src: src}
	for {
		for lx.pos < len(src) && (src[lx.pos] == ' ' || src[lx.pos] == '\t' || src[lx.pos] == '\n' || src[lx.pos] == '\r') {
			lx.pos++
		}
		if lx.pos >= len(src) {
			lx.toks = append(lx.toks, exprToken{kind: tokEOF, pos: lx.pos, end: lx.pos})
			return lx.toks, nil
		}
		if err := lx.next(); err != nil {
			return nil, err
		}
	}
}

func (lx *exprLexer) emit(kind exprTok, start int) *exprToken {
	lx.toks = append(lx.toks, exprToken{kind: kind, pos: start, end: lx.pos, text: lx.src[start:lx.pos]})
	return &lx.toks[len(lx.toks)-1]
}

func (lx *exprLexer) next() *ExprError {
	start := lx.pos
	c := lx.src[lx.pos]
	two := ""
	if lx.pos+1 < len(lx.src) {
		two = lx.src[lx.pos : lx.pos+2]
	}
	switch {
	case two == "&&":
		lx.pos += 2
		lx.emit(tokAnd, start)
	case two == "||":
		return lx.hintAt(start, orHint, "|| is not supported")
	case two == "==" || two == "!=" || two == "<=" || two == ">=":
		lx.pos += 2
		lx.emit(tokOp, start).op = map[string]CmpOp{"==": OpEq, "!=": OpNe, "<=": OpLe, ">=": OpGe}[two]
	case two == "<>":
		return lx.hintAt(start, "use !=", "unexpected %q", two)
	case c == '=' || c == '<' || c == '>':
		lx.pos++
		lx.emit(tokOp, start).op = map[byte]CmpOp{'=': OpEq, '<': OpLt, '>': OpGt}[c]
	case c == '[':
		lx.pos++
		lx.emit(tokLBrack, start)
	case c == ']':
		lx.pos++
		lx.emit(tokRBrack, start)
	case c == ',':
		lx.pos++
		lx.emit(tokComma, start)
	case c == '(':
		lx.pos++
		lx.emit(tokLParen, start)
	case c == ')':
		lx.pos++
		lx.emit(tokRParen, start)
	case c == '"' || c == '\'':
		return lx.lexString()
	case exprDigit(c) || c == '.' && exprDigit(lx.peekByte(1)) ||
		c == '-' && (exprDigit(lx.peekByte(1)) || lx.peekByte(1) == '.' && exprDigit(lx.peekByte(2))):
		return lx.lexNumberOrName()
	case exprNameStart(c):
		return lx.lexName()
	case c == '+' || c == '-' || c == '*' || c == '/' || c == '%':
		return lx.errAt(start, "arithmetic (%q) is not supported", string(c))
	case c == '&':
		return lx.hintAt(start, "use && or and", "unexpected \"&\"")
	case c == '!':
		return lx.hintAt(start, "negation is not supported (use != or not in)", "unexpected \"!\"")
	default:
		r, _ := utf8.DecodeRuneInString(lx.src[lx.pos:])
		return lx.errAt(start, "unexpected %q", string(r))
	}
	return nil
}

func (lx *exprLexer) lexString() *ExprError {
	start := lx.pos
	quote := lx.src[lx.pos]
	lx.pos++
	var b strings.Builder
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == quote:
			lx.pos++
			lx.emit(tokStr, start).str = b.String()
			return nil
		case c == '\\' && lx.pos+1 < len(lx.src):
			lx.pos++
			switch e := lx.src[lx.pos]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
			lx.pos++
		default:
			b.WriteByte(c)
			lx.pos++
		}
	}
	return lx.errAt(start, "unterminated string")
}

// lexNumberOrName lexes a token that starts with a digit, '.' or '-': a
// number, or a name whose node part starts with a digit ("1.risk" is
// attribute risk of node "1").
func (lx *exprLexer) lexNumberOrName() *ExprError {
	start := lx.pos
	if exprDigit(lx.src[start]) {
		end := start
		for end < len(lx.src) && exprNameChar(lx.src[end]) {
			end++
		}
		if end+1 < len(lx.src) && lx.src[end] == '.' && exprNameStart(lx.src[end+1]) {
			return lx.lexName()
		}
	}
	p := start
	if lx.src[p] == '-' {
		p++
	}
	for p < len(lx.src) && exprDigit(lx.src[p]) {
		p++
	}
	if p < len(lx.src) && lx.src[p] == '.' {
		p++
		for p < len(lx.src) && exprDigit(lx.src[p]) {
			p++
		}
	}
	if p < len(lx.src) && (lx.src[p] == 'e' || lx.src[p] == 'E') {
		q := p + 1
		if q < len(lx.src) && (lx.src[q] == '+' || lx.src[q] == '-') {
			q++
		}
		if q < len(lx.src) && exprDigit(lx.src[q]) {
			for q < len(lx.src) && exprDigit(lx.src[q]) {
				q++
			}
			p = q
		}
	}
	for p < len(lx.src) && (exprNameChar(lx.src[p]) || lx.src[p] == '.') {
		p++ // swallow the rest of a malformed number for the message
	}
	text := lx.src[start:p]
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || strings.ContainsAny(text, "_xXpPiInN") {
		return lx.errAt(start, "invalid number %q", text)
	}
	lx.pos = p
	lx.emit(tokNum, start).num = v
	return nil
}

func (lx *exprLexer) lexName() *ExprError {
	start := lx.pos
	for lx.pos < len(lx.src) && exprNameChar(lx.src[lx.pos]) {
		lx.pos++
	}
	if lx.pos < len(lx.src) && lx.src[lx.pos] == '.' {
		if lx.pos+1 >= len(lx.src) || !exprNameStart(lx.src[lx.pos+1]) {
			return lx.errAt(lx.pos, "expected an attribute name after %q", lx.src[start:lx.pos+1])
		}
		lx.pos++
		for lx.pos < len(lx.src) && exprNameChar(lx.src[lx.pos]) {
			lx.pos++
		}
		if lx.pos < len(lx.src) && lx.src[lx.pos] == '.' {
			return lx.errAt(lx.pos, "unexpected \".\": a name is attr, eN.attr or Node.attr")
		}
	}
	word := lx.src[start:lx.pos]
	switch strings.ToLower(word) {
	case "and":
		lx.emit(tokAnd, start)
	case "in":
		lx.emit(tokIn, start)
	case "not":
		lx.emit(tokNot, start)
	case "or":
		return lx.hintAt(start, orHint, "%q is not supported", word)
	default:
		lx.emit(tokName, start)
	}
	return nil
}

// ---- parser ----

// exprOperand is an operand as written, before names are resolved.
type exprOperand struct {
	kind OperandKind // Literal, List, or EdgeAttr for any name (resolved later)
	col  int
	// name: node part ("" for a bare name) and attribute
	head, attr string
	lit        Operand // Literal and List
}

func (o *exprOperand) bare() bool { return o.kind == EdgeAttr && o.head == "" }

// exprCmp is one comparison as written.
type exprCmp struct {
	left, right exprOperand
	op          CmpOp
	opCol       int
	text        string
}

type exprParser struct {
	src  string
	toks []exprToken
	i    int
}

// parseExpr parses src into its comparisons (a conjunction).
func parseExpr(src string) ([]exprCmp, *ExprError) {
	toks, lerr := lexExpr(src)
	if lerr != nil {
		return nil, lerr
	}
	p := &exprParser{src: src, toks: toks}
	if p.peek().kind == tokEOF {
		return nil, &ExprError{Text: src, Msg: "empty expression"}
	}
	var out []exprCmp
	if err := p.conj(&out, 0); err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		if t.kind == tokRParen {
			return nil, p.errAt(t, "unmatched \")\"")
		}
		return nil, p.unexpected(t, "comparisons are joined with && or and")
	}
	return out, nil
}

func (p *exprParser) peek() *exprToken { return &p.toks[p.i] }

func (p *exprParser) take() *exprToken {
	t := &p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *exprParser) errAt(t *exprToken, format string, args ...any) *ExprError {
	return &ExprError{Text: p.src, Column: exprCol(p.src, t.pos), Msg: fmt.Sprintf(format, args...)}
}

// unexpected reports token t, with a hint of what was expected.
func (p *exprParser) unexpected(t *exprToken, hint string) *ExprError {
	e := p.errAt(t, "unexpected %s", p.describe(t))
	e.Hint = hint
	return e
}

func (p *exprParser) describe(t *exprToken) string {
	if t.kind == tokEOF {
		return "end of expression"
	}
	return strconv.Quote(t.text)
}

func (p *exprParser) conj(out *[]exprCmp, depth int) *ExprError {
	for {
		if err := p.term(out, depth); err != nil {
			return err
		}
		if p.peek().kind != tokAnd {
			return nil
		}
		p.take()
	}
}

func (p *exprParser) term(out *[]exprCmp, depth int) *ExprError {
	if t := p.peek(); t.kind == tokLParen {
		if depth >= 32 {
			return p.errAt(t, "parentheses nested too deeply")
		}
		p.take()
		if err := p.conj(out, depth+1); err != nil {
			return err
		}
		if t := p.take(); t.kind != tokRParen {
			return p.unexpected(t, "expected \")\"")
		}
		return nil
	}
	first := p.peek()
	var c exprCmp
	var err *ExprError
	if c.left, err = p.operand(); err != nil {
		return err
	}
	opTok := p.take()
	c.opCol = exprCol(p.src, opTok.pos)
	switch opTok.kind {
	case tokOp:
		c.op = opTok.op
		if c.right, err = p.operand(); err != nil {
			return err
		}
	case tokIn, tokNot:
		c.op = OpIn
		if opTok.kind == tokNot {
			if t := p.take(); t.kind != tokIn {
				return p.unexpected(t, "expected \"in\" after \"not\"")
			}
			c.op = OpNotIn
		}
		if c.right, err = p.list(); err != nil {
			return err
		}
	default:
		return p.unexpected(opTok, "expected a comparison operator (== != < <= > >= in)")
	}
	last := p.toks[p.i-1]
	c.text = p.src[first.pos:last.end]
	*out = append(*out, c)
	return nil
}

func (p *exprParser) operand() (exprOperand, *ExprError) {
	t := p.take()
	o := exprOperand{col: exprCol(p.src, t.pos)}
	switch t.kind {
	case tokNum:
		o.kind, o.lit = Literal, Operand{Kind: Literal, Num: t.num}
	case tokStr:
		o.kind, o.lit = Literal, Operand{Kind: Literal, Str: t.str, IsStr: true}
	case tokName:
		o.kind = EdgeAttr
		if i := strings.IndexByte(t.text, '.'); i >= 0 {
			o.head, o.attr = t.text[:i], t.text[i+1:]
		} else {
			o.attr = t.text
		}
	case tokLBrack:
		return o, p.errAt(t, "a list is only allowed after in / not in")
	default:
		return o, p.unexpected(t, "expected a number, string or attribute")
	}
	return o, nil
}

func (p *exprParser) list() (exprOperand, *ExprError) {
	t := p.take()
	o := exprOperand{kind: List, col: exprCol(p.src, t.pos), lit: Operand{Kind: List}}
	if t.kind != tokLBrack {
		return o, p.unexpected(t, "in needs a list of literals like [1, 2] or [\"a\", \"b\"]")
	}
	for {
		if p.peek().kind == tokRBrack && len(o.lit.List) > 0 {
			p.take()
			return o, nil
		}
		t := p.take()
		var it Operand
		switch t.kind {
		case tokNum:
			it = Operand{Kind: Literal, Num: t.num}
		case tokStr:
			it = Operand{Kind: Literal, Str: t.str, IsStr: true}
		case tokRBrack:
			return o, p.errAt(t, "empty list")
		case tokName:
			return o, p.errAt(t, "in needs a list of literals; %s is not a number or quoted string", p.describe(t))
		default:
			return o, p.unexpected(t, "expected a number or quoted string in the list")
		}
		if len(o.lit.List) > 0 && it.IsStr != o.lit.List[0].IsStr {
			return o, p.errAt(t, "list mixes strings and numbers")
		}
		o.lit.List = append(o.lit.List, it)
		switch t := p.take(); t.kind {
		case tokComma:
		case tokRBrack:
			return o, nil
		default:
			return o, p.unexpected(t, "expected \",\" or \"]\" in the list")
		}
	}
}

// ---- resolution ----

// exprEnv resolves the names of an expression.
type exprEnv interface {
	// copies returns how many predicates a comparison with a bare name
	// expands into (1 unless the scope is "each edge" or "each node").
	copies() int
	// resolve turns a name into an EdgeAttr or NodeAttr operand; copy is
	// the expansion index (which edge or node a bare name means).
	resolve(o *exprOperand, copy int) (Operand, *resolveErr)
}

// resolveErr is a reference or type error; resolve leaves col to the caller.
type resolveErr struct {
	col       int
	msg, hint string
}

func (c *exprCmp) resolve(env exprEnv) ([]Predicate, *resolveErr) {
	n := 1
	if c.left.bare() || c.right.bare() {
		n = env.copies()
	}
	if c.left.kind == Literal && c.right.kind == Literal {
		return nil, &resolveErr{col: c.left.col, msg: "compares two literals", hint: "one side must be an attribute"}
	}
	if c.op == OpIn || c.op == OpNotIn {
		if c.left.kind == Literal {
			return nil, &resolveErr{col: c.left.col, msg: "the left side of " + c.op.String() + " must be an attribute"}
		}
	} else if c.op != OpEq && c.op != OpNe {
		for _, o := range []*exprOperand{&c.left, &c.right} {
			if o.kind == Literal && o.lit.IsStr {
				return nil, &resolveErr{col: c.opCol, msg: fmt.Sprintf("%s needs numbers, not the string %q", c.op, o.lit.Str), hint: "strings take ==, !=, in and not in"}
			}
		}
	}
	out := make([]Predicate, 0, n)
	for k := range n {
		pr := Predicate{Op: c.op}
		for side, o := range []*exprOperand{&c.left, &c.right} {
			dst := &pr.Left
			if side == 1 {
				dst = &pr.Right
			}
			if o.kind == Literal || o.kind == List {
				*dst = o.lit
				if o.kind == List {
					dst.List = append([]Operand(nil), o.lit.List...)
				}
				continue
			}
			r, err := env.resolve(o, k)
			if err != nil {
				err.col = o.col
				return nil, err
			}
			*dst = r
		}
		if pr.Left.Kind == Literal {
			// Keep the reference on the left: 5 < amount → amount > 5.
			pr.Left, pr.Right = pr.Right, pr.Left
			pr.Op = flipCmp(pr.Op)
		}
		out = append(out, pr)
	}
	return out, nil
}

// flipCmp returns op with its sides swapped: a < b ⇔ b > a.
func flipCmp(op CmpOp) CmpOp {
	switch op {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return op
}

// queryEnv resolves names against a query in the YAML format.
type queryEnv struct {
	q     *Query
	scope Scope
}

func (e *queryEnv) copies() int {
	switch e.scope.kind {
	case scopeEachEdge:
		return len(e.q.Edges)
	case scopeEachNode:
		return len(e.q.Nodes)
	}
	return 1
}

func (e *queryEnv) resolve(o *exprOperand, copy int) (Operand, *resolveErr) {
	q := e.q
	if o.head == "" {
		switch e.scope.kind {
		case scopeEachEdge:
			return Operand{Kind: EdgeAttr, Index: copy, Attr: o.attr}, nil
		case scopeEdge:
			return Operand{Kind: EdgeAttr, Index: e.scope.index, Attr: o.attr}, nil
		case scopeNode:
			return Operand{Kind: NodeAttr, Index: e.scope.index, Attr: o.attr}, nil
		default:
			return Operand{Kind: NodeAttr, Index: copy, Attr: o.attr}, nil
		}
	}
	node := q.NodeIndex(o.head)
	edge, isEdge := edgeRef(o.head)
	switch {
	case isEdge && node >= 0:
		return Operand{}, &resolveErr{msg: fmt.Sprintf("%q is both a node name and an edge number", o.head), hint: "rename the node"}
	case node >= 0:
		return Operand{Kind: NodeAttr, Index: node, Attr: o.attr}, nil
	case isEdge:
		if edge < 1 || edge > len(q.Edges) {
			return Operand{}, &resolveErr{msg: fmt.Sprintf("edge %s out of range", o.head), hint: fmt.Sprintf("edges are numbered e1..e%d", len(q.Edges))}
		}
		return Operand{Kind: EdgeAttr, Index: edge - 1, Attr: o.attr}, nil
	}
	return Operand{}, &resolveErr{msg: fmt.Sprintf("unknown node %q", o.head), hint: fmt.Sprintf("nodes: %s; edges: e1..e%d", queryNodeNames(q), len(q.Edges))}
}

// edgeRef parses "eN" (N decimal, no sign) and reports whether s has that
// form.
func edgeRef(s string) (int, bool) {
	if len(s) < 2 || s[0] != 'e' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if !exprDigit(s[i]) {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil {
		return 1 << 30, true // absurdly large: reported out of range
	}
	return n, true
}

func queryNodeNames(q *Query) string {
	if len(q.Nodes) == 0 {
		return "none"
	}
	names := make([]string, len(q.Nodes))
	for i, n := range q.Nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}

// Package yamldoc reads the one-document YAML files motifwatch takes
// (configurations, query files, Everest queries) as yaml.Node trees, so
// every error can name a line, and does so the same way everywhere.
package yamldoc

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Error is a YAML problem at a line (0 when the parser gave none).
// SecondDocument marks a file holding more than one document; callers
// phrase that in their own terms.
type Error struct {
	Line           int
	Msg            string
	SecondDocument bool
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return "line " + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.Msg
}

var lineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// Root parses data, which must hold at most one document, and returns
// that document's root node with aliases resolved: nil for an empty file
// or a null document. Errors are *Error.
func Root(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, problemLine(data, parseErr(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{Line: extra.Line, Msg: "a second YAML document", SecondDocument: true}
	} else if !errors.Is(err, io.EOF) {
		return nil, problemLine(data, parseErr(err))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	root := Resolve(doc.Content[0])
	if IsNull(root) {
		return nil, nil
	}
	return root, nil
}

// Resolve follows alias nodes to what they name (bounded, so a cycle
// cannot hang it).
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// IsNull reports whether n is absent or YAML's null ("~", "null" or
// nothing after the colon).
func IsNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// Kind describes what n holds for an error message: "a mapping", "a
// list", "nothing" (null) or the quoted scalar.
func Kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if IsNull(n) {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	}
	return "an unsupported YAML node"
}

// blockErrors are the parser's messages about a block mapping or list
// that goes wrong: the parser reports the line where the block began
// (line 1 for a file whose top-level mapping breaks on line 6), not the
// line that broke it.
var blockErrors = map[string]bool{
	"did not find expected key":           true,
	"did not find expected '-' indicator": true,
}

// maxRelocateLines bounds the work of problemLine, which parses up to one
// prefix per line: configuration and query files are far smaller.
const maxRelocateLines = 5000

// problemLine moves a block error from the line where the block began to
// the line that broke it: the first line whose prefix of the document
// fails to parse with the same message. (A prefix of a YAML document
// ends its open blocks cleanly, so the prefixes before the bad line
// parse.) Other errors are returned as they are.
func problemLine(data []byte, e *Error) *Error {
	if !blockErrors[e.Msg] || e.Line == 0 {
		return e
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxRelocateLines {
		return e
	}
	end := 0
	for i, l := range lines {
		end += len(l)
		if i+1 < e.Line {
			continue
		}
		var n yaml.Node
		err := yaml.Unmarshal(data[:end], &n)
		if err == nil {
			continue
		}
		if pe := parseErr(err); pe.Msg == e.Msg {
			return &Error{Line: i + 1, Msg: e.Msg}
		}
	}
	return e
}

// parseErr turns the parser's "yaml: line N: msg" into an Error.
func parseErr(err error) *Error {
	if m := lineRE().FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Line: line, Msg: m[2]}
	}
	return &Error{Msg: err.Error()}
}

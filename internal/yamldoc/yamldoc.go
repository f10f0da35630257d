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

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

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
		return nil, parseErr(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{Line: extra.Line, Msg: "a second YAML document", SecondDocument: true}
	} else if !errors.Is(err, io.EOF) {
		return nil, parseErr(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	root := Resolve(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
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

// parseErr turns the parser's "yaml: line N: msg" into an Error.
func parseErr(err error) *Error {
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Line: line, Msg: m[2]}
	}
	return &Error{Msg: err.Error()}
}

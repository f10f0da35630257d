package window

import (
	"fmt"
	"time"
)

// Kind is the type of an attribute column.
type Kind uint8

const (
	// Number attributes hold float64 values; a missing value is NaN.
	Number Kind = iota
	// String attributes hold codes from the window's Strings table, stored
	// as float64 so one column type serves both; a missing value is "".
	String
)

func (k Kind) String() string {
	if k == String {
		return "string"
	}
	return "number"
}

// Attr names a typed attribute column.
type Attr struct {
	Name string
	Kind Kind
}

// LabelAttr is the node attribute that node-label constraints read.
const LabelAttr = "label"

// Schema describes the time unit and the attribute columns of a window.
// It is fixed when the window is created.
type Schema struct {
	// TimeUnit is the duration of one timestamp tick (1s for SNAP files).
	// Query durations such as "10m" are converted with it.
	TimeUnit  time.Duration
	EdgeAttrs []Attr
	NodeAttrs []Attr
}

// EdgeAttr returns the column index of the named edge attribute.
func (s *Schema) EdgeAttr(name string) (int, Kind, bool) { return find(s.EdgeAttrs, name) }

// NodeAttr returns the column index of the named node attribute.
func (s *Schema) NodeAttr(name string) (int, Kind, bool) { return find(s.NodeAttrs, name) }

func find(as []Attr, name string) (int, Kind, bool) {
	for i, a := range as {
		if a.Name == name {
			return i, a.Kind, true
		}
	}
	return -1, 0, false
}

// Validate reports a schema that cannot be used.
func (s *Schema) Validate() error {
	if s.TimeUnit <= 0 {
		return fmt.Errorf("window schema: time unit %v must be positive", s.TimeUnit)
	}
	for _, list := range [][]Attr{s.EdgeAttrs, s.NodeAttrs} {
		seen := map[string]bool{}
		for _, a := range list {
			if a.Name == "" {
				return fmt.Errorf("window schema: empty attribute name")
			}
			if seen[a.Name] {
				return fmt.Errorf("window schema: duplicate attribute %q", a.Name)
			}
			seen[a.Name] = true
		}
	}
	return nil
}

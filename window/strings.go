package window

// Strings interns attribute values of string kind. Codes are stable for the
// life of the window (they are small and bounded by the number of distinct
// values, unlike node ids), and code 0 is always the empty string, which is
// what a missing string attribute reads as.
type Strings struct {
	byValue map[string]uint32
	values  []string
}

func newStrings() *Strings {
	return &Strings{byValue: map[string]uint32{"": 0}, values: []string{""}}
}

// Intern returns the code of s, assigning a new one if needed.
func (s *Strings) Intern(v string) uint32 {
	if c, ok := s.byValue[v]; ok {
		return c
	}
	c := uint32(len(s.values))
	s.values = append(s.values, v)
	s.byValue[v] = c
	return c
}

// Value returns the string of a code.
func (s *Strings) Value(code uint32) string { return s.values[code] }

// Len returns the number of distinct values.
func (s *Strings) Len() int { return len(s.values) }

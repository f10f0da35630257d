package backend

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Backend
		err  string
	}{
		{"cpu", CPU, ""}, {"gpu", GPU, ""}, {"auto", Auto, ""},
		{"", "", `"": want cpu, gpu or auto`},
		{"GPU", "", `"GPU": want cpu, gpu or auto`},
		{"tpu", "", `"tpu": want cpu, gpu or auto`},
	} {
		got, err := Parse(tc.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tc.want || msg != tc.err {
			t.Errorf("Parse(%q) = %q, %q; want %q, %q", tc.in, got, msg, tc.want, tc.err)
		}
	}
}

func TestNamesParse(t *testing.T) {
	for _, n := range Names() {
		if b, err := Parse(n); err != nil || b.String() != n {
			t.Errorf("Parse(%q) = %q, %v; want it back", n, b, err)
		}
	}
}

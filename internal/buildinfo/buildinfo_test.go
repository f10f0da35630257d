package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	checkout := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "b2e6843a1f0c9d8e7b6a5f4e3d2c1b0a99887766"},
		{Key: "vcs.time", Value: "2026-12-06T06:02:38Z"}, {Key: "vcs.modified", Value: "true"}}}
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.9.0"}}
	for _, c := range []struct {
		name     string
		bi       *debug.BuildInfo
		override string
		want     string
	}{
		{"go build in a checkout", checkout, "", "devel (rev b2e6843a1f0c, modified, 2026-12-06T06:02:38Z, go1.26.8)"},
		{"go install of a release", installed, "", "v0.9.0 (go1.26.8)"},
		{"version set at link time", checkout, "v1.0.0", "v1.0.0 (rev b2e6843a1f0c, modified, 2026-12-06T06:02:38Z, go1.26.8)"},
		{"nothing known", &debug.BuildInfo{GoVersion: "go1.26.8"}, "", "devel (go1.26.8)"},
	} {
		if got := fromBuildInfo(c.bi, c.override).String(); got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
}

// The test binary itself has build information: Read never returns an
// empty version or Go version.
func TestRead(t *testing.T) {
	in := Read()
	if in.Version == "" || in.GoVersion == "" {
		t.Errorf("Read() = %+v; want a version and a Go version", in)
	}
}

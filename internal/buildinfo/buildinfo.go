package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version, when set at link time (-ldflags "-X
// github.com/motifwatch/motifwatch/internal/buildinfo.version=v1.2.3"),
// overrides the module version of the build information: a release
// pipeline that builds from a tarball has no VCS to read.
var version string

// Info is one build's identity.
type Info struct {
	// Version is the release ("v1.2.3"), the module's pseudo-version
	// (`go install …@<commit>`), or "devel" for a build in a checkout.
	Version string `json:"version"`
	// Revision is the VCS commit ("" when unknown); Modified, whether the
	// tree had changes not committed; Time, the commit's time (RFC 3339).
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Time     string `json:"time,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"go_version"`
}

// Read returns the running binary's Info.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: or(version, "unknown"), GoVersion: "unknown"}
	}
	return fromBuildInfo(bi, version)
}

func fromBuildInfo(bi *debug.BuildInfo, override string) Info {
	in := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	// "(devel)" is what the toolchain writes for a build of the main
	// module in its own checkout.
	if in.Version == "" || in.Version == "(devel)" {
		in.Version = "devel"
	}
	in.Version = or(override, in.Version)
	return in
}

// String is the one line `monitor --version` prints:
// "v1.2.3 (rev 0123abcd4567, modified, 2026-12-06T04:17:15Z, go1.26.8)".
func (in Info) String() string {
	var parts []string
	if in.Revision != "" {
		parts = append(parts, "rev "+short(in.Revision))
	}
	if in.Modified {
		parts = append(parts, "modified")
	}
	if in.Time != "" {
		parts = append(parts, in.Time)
	}
	parts = append(parts, in.GoVersion)
	return fmt.Sprintf("%s (%s)", in.Version, strings.Join(parts, ", "))
}

// short is the first 12 characters of a revision, as `git log
// --abbrev=12` prints it.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

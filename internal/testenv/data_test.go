package testenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDataREADME: every reference graph under testdata/ has a row in
// testdata/README.md, and each row's line count and checksum are those
// of the file Data hands out: the README's provenance is of these bytes.
func TestDataREADME(t *testing.T) {
	dir, err := DataDir()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (\S+\.gz) \| (\d+) \| ([0-9a-f]{64}) \|$`)
	listed := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		name, lines, sum := m[1], m[2], m[3]
		listed[name] = true
		text, err := os.ReadFile(Data(t, strings.TrimSuffix(name, ".gz")))
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(text)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x; README.md says %s", name, got, sum)
		}
		if n := strconv.Itoa(bytes.Count(text, []byte("\n"))); n != lines {
			t.Errorf("%s: %s lines; README.md says %s", name, n, lines)
		}
	}
	if len(listed) == 0 {
		t.Fatal("testdata/README.md has no file rows")
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.HasSuffix(rel, ".gz") && !listed[filepath.ToSlash(rel)] {
			t.Errorf("testdata/%s has no row in testdata/README.md (source, licence, checksum)", rel)
		}
		return nil
	})
}

func TestDataMissingFails(t *testing.T) {
	if _, err := dataPath("temporal/no-such-graph.txt"); err == nil || !strings.Contains(err.Error(), "no-such-graph") {
		t.Errorf("dataPath of a missing graph: %v; want an error naming it", err)
	}
}

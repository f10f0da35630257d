package testenv

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Data returns the path of a plain-text copy of the reference graph name
// ("temporal/CollegeMsg.txt", "static/citeseer.edgelist"), shipped
// gzipped as testdata/<name>.gz at the module's root (testdata/README.md
// names each file's source and checksum). The copy lives in a temporary
// folder removed when the test ends; the loaders and the CLI read it as
// they read a user's file. A file missing from testdata/ fails the test:
// the reference checks run in every clone, they never skip.
func Data(t testing.TB, name string) string {
	t.Helper()
	src, err := dataPath(name)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := gunzip(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// DataDir is the module's testdata/ folder, found by walking up from the
// working directory (a package's folder under `go test`) to go.mod.
func DataDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("testenv: no go.mod above the working directory: cannot find the module's testdata/")
		}
		dir = parent
	}
}

func dataPath(name string) (string, error) {
	dir, err := DataDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, filepath.FromSlash(name)+".gz")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("testenv: reference graph %s: %w (the repository ships it under testdata/)", name, err)
	}
	return path, nil
}

func gunzip(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	if err := zr.Close(); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	return out.Close()
}

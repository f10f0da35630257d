package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWarningsPasswordFileMode: a config file that holds the SASL
// password warns while group or others can read it, names the file, the
// mode and the way out, and never the password; a 0600 file, or a
// password from the environment, does not warn.
func TestWarningsPasswordFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are POSIX")
	}
	const secret = "pw-0a9b8c7d"
	text := "kafka:\n  brokers: kafka:9093\n  tls: {enabled: true}\n  sasl:\n    mechanism: scram-sha-512\n    username: mw\n    password: " + secret + "\nqueries:\n  inline: [{name: q, delta: 1m, edges: [A -> B]}]\n"
	path := filepath.Join(t.TempDir(), "mw.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	warnings := func() []string {
		t.Helper()
		c, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Check(); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range c.Warnings() {
			out = append(out, w.Error())
		}
		return out
	}
	if w := warnings(); len(w) != 0 {
		t.Errorf("mode 0600: Warnings() = %q; want none", w)
	}
	for _, c := range []struct {
		mode os.FileMode
		want string
	}{
		{0o640, path + ":7: kafka.sasl.password: " + path + " holds the password and is readable by its group (mode 0640): chmod 600 it, or set $MONITOR_KAFKA_SASL_PASSWORD instead"},
		{0o604, "is readable by others (mode 0604)"},
		{0o644, "is readable by group and others (mode 0644)"},
	} {
		if err := os.Chmod(path, c.mode); err != nil {
			t.Fatal(err)
		}
		w := warnings()
		if len(w) != 1 || !strings.Contains(w[0], c.want) {
			t.Errorf("mode %04o: Warnings() = %q; want one with %q", c.mode, w, c.want)
		}
		if strings.Contains(strings.Join(w, ""), secret) {
			t.Errorf("mode %04o: a warning shows the password: %q", c.mode, w)
		}
	}
	// The password from the environment: the file holds none.
	os.WriteFile(path, []byte(strings.Replace(text, "password: "+secret, `password: ""`, 1)), 0o644)
	t.Setenv("MONITOR_KAFKA_SASL_PASSWORD", secret)
	if w := warnings(); len(w) != 0 {
		t.Errorf("password from the environment, file 0644: Warnings() = %q; want none", w)
	}
}

// TestWarningsNone: the defaults and a verified TLS + SCRAM setup warn of
// nothing.
func TestWarningsNone(t *testing.T) {
	c := valid()
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("valid().Warnings() = %v; want none", w)
	}
	c.Kafka.Brokers = []string{"kafka:9093"}
	c.Kafka.TLS = TLS{Enabled: true, CAFile: "testdata/tls/ca.pem"}
	c.Kafka.SASL = SASL{Mechanism: SASLPlain, Username: "u", Password: "p"}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("plain over verified TLS: Warnings() = %v; want none", w)
	}
}

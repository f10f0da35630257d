package config

import (
	"os"
	"runtime"
)

// Warnings lists what is allowed but unsafe in c, each a *FieldError
// naming the field and where it was set: TLS without certificate checks,
// SASL plain allowed without TLS, and a password kept in a config file
// that group or others may read. `monitor validate` prints them and the
// daemon logs them at start; none stops it. It reads the mode of c.Source.
func (c *Config) Warnings() []error {
	var out []error
	k := &c.Kafka
	if k.TLS.Enabled && k.TLS.InsecureSkipVerify {
		out = append(out, c.fieldErr("kafka.tls.insecure_skip_verify",
			"true: the brokers' certificates are not checked, so anyone on the network path can pose as them and read the records and the SASL password (give kafka.tls.ca_file instead)"))
	}
	if k.SASL.Mechanism == SASLPlain && !k.TLS.Enabled && k.SASL.AllowInsecure && !c.Embedded() {
		out = append(out, c.fieldErr("kafka.sasl.allow_insecure",
			"true: mechanism plain without kafka.tls sends the password to the brokers in clear text"))
	}
	if w := c.passwordFileWarning(); w != nil {
		out = append(out, w)
	}
	return out
}

// passwordFileWarning: the SASL password is written in c.Source, which
// group or others may read.
func (c *Config) passwordFileWarning() error {
	const field = "kafka.sasl.password"
	if c.Source == "" || c.Kafka.SASL.Password == "" || runtime.GOOS == "windows" {
		return nil
	}
	if o, ok := c.origins[field]; !ok || o.env != "" || o.line == 0 {
		return nil // not written in the file
	}
	fi, err := os.Stat(c.Source)
	if err != nil {
		return nil // Parse of text that names a file that is not there
	}
	if mode := fi.Mode().Perm(); mode&0o044 != 0 {
		return c.fieldErr(field, "%s holds the password and is readable by %s (mode %04o): chmod 600 it, or set $%s instead",
			c.Source, readers(mode), mode, EnvVar(field))
	}
	return nil
}

func readers(mode os.FileMode) string {
	switch {
	case mode&0o040 != 0 && mode&0o004 != 0:
		return "group and others"
	case mode&0o040 != 0:
		return "its group"
	}
	return "others"
}

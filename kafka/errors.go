package kafka

import (
	"regexp"
	"sync"
)

// methodPrefix matches the "kafka.(*Client).Metadata: " prefixes of
// kafka-go's errors, wherever they sit in a wrapped message.
// (Compiled on first use: every command imports this package.)
var methodPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`kafka\.\(\*?[A-Za-z]+\)\.[A-Za-z]+: `) })

// CleanError returns err with kafka-go's method prefixes removed from its
// message; nil stays nil, and an error without them is returned as is.
func CleanError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := methodPrefix().ReplaceAllString(msg, "")
	if clean == msg {
		return err
	}
	return &cleaned{msg: clean, err: err}
}

// cleaned is an error with a reworded message and the original chain.
type cleaned struct {
	msg string
	err error
}

func (c *cleaned) Error() string { return c.msg }
func (c *cleaned) Unwrap() error { return c.err }

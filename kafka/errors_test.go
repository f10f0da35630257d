package kafka

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestClean(t *testing.T) {
	base := fmt.Errorf("kafka.(*Client).Metadata: dial tcp 127.0.0.1:1: connect: connection refused: %w", io.EOF)
	err := fmt.Errorf("broker: [127.0.0.1:1] not ready: context canceled (last error: %v): %w", "kafka.(*Client).CreateTopics: x", base)
	got := CleanError(err)
	want := "broker: [127.0.0.1:1] not ready: context canceled (last error: x): dial tcp 127.0.0.1:1: connect: connection refused: EOF"
	if got.Error() != want {
		t.Errorf("CleanError(%q) = %q; want %q", err, got, want)
	}
	if !errors.Is(got, io.EOF) {
		t.Errorf("Clean lost the error chain: errors.Is(%v, io.EOF) is false", got)
	}
	plain := errors.New("no prefix here")
	if CleanError(plain) != plain || CleanError(nil) != nil {
		t.Errorf("Clean changed an error without kafka-go prefixes")
	}
}

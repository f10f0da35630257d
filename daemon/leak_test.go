package daemon

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// daemon the tests start must stop whole (its run group, Kafka clients,
// HTTP server and their helpers), as `monitor run` does on SIGTERM.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Package promreg registers Prometheus collectors the way every
// motifwatch component needs: idempotently (a second component on the same
// registry gets the collector already there) and without panicking
// (library code returns errors; MustRegister would panic).
package promreg

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers c with reg and returns it, or the collector already
// registered in its place; any other error is joined into *errp, so a
// constructor can register all its collectors and check once.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C, errp *error) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	*errp = errors.Join(*errp, err)
	return c
}

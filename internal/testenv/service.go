package testenv

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Service is a long-running function, such as daemon.Run, run in the
// test's process.
type Service[I any] struct {
	// Info is what the service reported when it came up.
	Info I

	cancel context.CancelFunc
	done   chan struct{}
	err    error // run's error, once done is closed
	once   sync.Once
}

// Start runs run in a goroutine with a context that Stop cancels, and
// waits until run calls up (the service is up; Info is what it passed)
// or returns (a failed start: the test fails with its error), for at most
// timeout. The service is stopped when the test ends.
func Start[I any](t testing.TB, timeout time.Duration, run func(ctx context.Context, up func(I)) error) *Service[I] {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service[I]{cancel: cancel, done: make(chan struct{})}
	upc := make(chan I, 1)
	go func() {
		defer close(s.done)
		s.err = run(ctx, func(i I) {
			select {
			case upc <- i:
			default: // reported twice: the first report stands
			}
		})
	}()
	select {
	case s.Info = <-upc:
		t.Cleanup(func() { s.Stop() })
		return s
	case <-s.done:
		cancel()
		t.Fatalf("service did not start: %v", s.err)
	case <-time.After(timeout):
		cancel()
		<-s.done
		t.Fatalf("service did not start within %s", timeout)
	}
	return nil
}

// Stop cancels the service's context, waits for run to return and
// returns its error; later calls return the same error.
func (s *Service[I]) Stop() error {
	s.once.Do(s.cancel)
	<-s.done
	return s.err
}

// Done is closed once run has returned, stopped or by itself; Err is then
// its error.
func (s *Service[I]) Done() <-chan struct{} { return s.done }

// Err returns run's error once Done is closed (nil before).
func (s *Service[I]) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

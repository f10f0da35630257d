package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestStartStop(t *testing.T) {
	stopped := errors.New("stopped")
	s := Start(t, 10*time.Second, func(ctx context.Context, up func(string)) error {
		up("ready")
		up("again") // a second report is ignored
		<-ctx.Done()
		return stopped
	})
	if s.Info != "ready" {
		t.Errorf("Info = %q; want ready", s.Info)
	}
	if s.Err() != nil {
		t.Errorf("Err() before the end = %v; want nil", s.Err())
	}
	if err := s.Stop(); err != stopped {
		t.Errorf("Stop() = %v; want %v", err, stopped)
	}
	if err := s.Stop(); err != stopped {
		t.Errorf("second Stop() = %v; want %v", err, stopped)
	}
	<-s.Done()
	if s.Err() != stopped {
		t.Errorf("Err() = %v; want %v", s.Err(), stopped)
	}
}

// A service that ends by itself is seen through Done and Err.
func TestServiceEndsByItself(t *testing.T) {
	finish := make(chan struct{})
	s := Start(t, 10*time.Second, func(ctx context.Context, up func(int)) error {
		up(7)
		<-finish
		return errors.New("finished")
	})
	close(finish)
	<-s.Done()
	if s.Info != 7 || s.Err() == nil || s.Err().Error() != "finished" {
		t.Errorf("Info %d, Err %v; want 7, finished", s.Info, s.Err())
	}
}

func TestParseMetrics(t *testing.T) {
	m := parseMetrics(`# HELP x_total X.
# TYPE x_total counter
x_total{partition="0"} 2
x_total{partition="1"} 3
y 1.5
bad line
`)
	want := map[string]float64{"x_total": 5, `x_total{partition="0"}`: 2, `x_total{partition="1"}`: 3, "y": 1.5}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Errorf("parseMetrics = %v; want %v", m, want)
	}
}

func TestScrapeAndWait(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++ // one request at a time: WaitMetrics scrapes in turn
		fmt.Fprintf(w, "polls %d\n", n)
	})}
	go srv.Serve(l)
	defer srv.Close()
	m := WaitMetrics(t, l.Addr().String(), 10*time.Second, time.Millisecond, "three polls", func(m map[string]float64) bool { return m["polls"] >= 3 })
	if m["polls"] != 3 {
		t.Errorf("WaitMetrics returned polls %v; want the first scrape that held, 3", m["polls"])
	}
	if _, err := TryScrape("127.0.0.1:1"); err == nil {
		t.Error("TryScrape of a closed port: no error")
	}
}

func TestSyncBufferTailPoll(t *testing.T) {
	var b SyncBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}()
	<-done
	if got := Tail(b.String(), 2); got != "line 98\nline 99" {
		t.Errorf("Tail = %q", got)
	}
	calls := 0
	if !Poll(10*time.Second, time.Millisecond, func() bool { calls++; return calls == 3 }) || calls != 3 {
		t.Errorf("Poll: %d calls; want true after 3", calls)
	}
	if Poll(0, time.Millisecond, func() bool { return false }) {
		t.Error("Poll of a false condition returned true")
	}
	if p := FreePort(t); p <= 0 {
		t.Errorf("FreePort = %d", p)
	}
}

func TestRefusedAddr(t *testing.T) {
	addr := RefusedAddr(t)
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			t.Fatalf("a connection to %s was accepted; want it refused", addr)
		}
		if !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("dialing %s: %v; want connection refused", addr, err)
		}
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Fatalf("another listener took %s while it was held", addr)
	}
}

package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// WriterSink writes alert records as JSON lines (one Alert per line) to an
// io.Writer: standard output for local use, or a file. A Write is
// acknowledged when the underlying Write returns, after a Flush if the
// writer has one (a *bufio.Writer); it does not fsync.
type WriterSink struct {
	mu     sync.Mutex
	w      io.Writer
	buf    bytes.Buffer
	closed bool
}

var _ Sink = (*WriterSink)(nil)

// NewWriterSink returns a sink writing to w, or to os.Stdout when w is nil.
// The sink does not close w.
func NewWriterSink(w io.Writer) *WriterSink {
	if w == nil {
		w = os.Stdout
	}
	return &WriterSink{w: w}
}

// Write writes alerts, one JSON object per line, in one call to the
// underlying writer. ctx is checked before writing only: a write to an
// io.Writer cannot be cancelled.
func (s *WriterSink) Write(ctx context.Context, alerts []Alert) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if len(alerts) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("writing %d alerts: %w", len(alerts), err)
	}
	s.buf.Reset()
	enc := json.NewEncoder(&s.buf)
	enc.SetEscapeHTML(false)
	for i := range alerts {
		if err := enc.Encode(&alerts[i]); err != nil {
			return fmt.Errorf("encoding %s alert of query %q: %w", alerts[i].Kind, alerts[i].Query, err)
		}
	}
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return fmt.Errorf("writing %d alerts: %w", len(alerts), err)
	}
	if f, ok := s.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("flushing %d alerts: %w", len(alerts), err)
		}
	}
	return nil
}

// Close stops the sink; it leaves the underlying writer open.
func (s *WriterSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

package alerts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// failWriter fails every write.
type failWriter struct{}

var errWriter = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWriter }

func TestWriterSink(t *testing.T) {
	want := testAlerts()
	tests := []struct {
		name   string
		writes [][]Alert
	}{
		{"one write", [][]Alert{want}},
		{"several writes", [][]Alert{want[:1], nil, want[1:5], want[5:]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			bw := bufio.NewWriterSize(&out, 1<<20)
			s := NewWriterSink(bw)
			for _, w := range tt.writes {
				if err := s.Write(context.Background(), w); err != nil {
					t.Fatal(err)
				}
			}
			// Acknowledged means flushed through the bufio.Writer.
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != len(want) {
				t.Fatalf("%d lines; want %d:\n%s", len(lines), len(want), out.String())
			}
			for i, line := range lines {
				b, _ := json.Marshal(want[i])
				var a Alert
				if err := json.Unmarshal([]byte(line), &a); err != nil {
					t.Errorf("line %d %q: %v", i, line, err)
				}
				if b2, _ := json.Marshal(a); !bytes.Equal(b, b2) {
					t.Errorf("line %d = %s; want %s", i, line, b)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Write(context.Background(), want); !errors.Is(err, ErrClosed) {
				t.Errorf("Write after Close = %v; want ErrClosed", err)
			}
		})
	}
}

func TestWriterSinkErrors(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		w    *WriterSink
		ctx  context.Context
		want error
	}{
		{"writer fails", NewWriterSink(failWriter{}), context.Background(), errWriter},
		{"flush fails", NewWriterSink(bufio.NewWriterSize(failWriter{}, 1<<20)), context.Background(), errWriter},
		{"context done", NewWriterSink(&bytes.Buffer{}), canceled, context.Canceled},
	}
	for _, tt := range tests {
		if err := tt.w.Write(tt.ctx, testAlerts()); !errors.Is(err, tt.want) {
			t.Errorf("%s: Write = %v; want %v", tt.name, err, tt.want)
		}
	}
}

func TestWriterSinkStdoutDefault(t *testing.T) {
	if s := NewWriterSink(nil); s.w == nil {
		t.Error("NewWriterSink(nil) has no writer; want os.Stdout")
	}
}

// TestWriterSinkKeepsHTMLCharacters: a description with <, > and & is
// written as is on stdout (the record's own encoder must not escape it).
func TestWriterSinkKeepsHTMLCharacters(t *testing.T) {
	var out bytes.Buffer
	s := NewWriterSink(&out)
	if err := s.Write(context.Background(), []Alert{{Kind: KindMatch, Query: "q", Description: "amount > 1000 & <5 hops"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"description":"amount > 1000 & <5 hops"`) {
		t.Errorf("stdout record %s; want the description unescaped", out.String())
	}
}

package alerts_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/alerts/alertstest"
)

// failWriter fails every write.
type failWriter struct{}

var errWriter = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWriter }

func TestWriterSink(t *testing.T) {
	want := alertstest.Sample()
	tests := []struct {
		name   string
		writes [][]alerts.Alert
	}{
		{"one write", [][]alerts.Alert{want}},
		{"several writes", [][]alerts.Alert{want[:1], nil, want[1:5], want[5:]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			bw := bufio.NewWriterSize(&out, 1<<20)
			s := alerts.NewWriterSink(bw)
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
				var a alerts.Alert
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
			if err := s.Write(context.Background(), want); !errors.Is(err, alerts.ErrClosed) {
				t.Errorf("Write after Close = %v; want alerts.ErrClosed", err)
			}
		})
	}
}

func TestWriterSinkErrors(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		w    *alerts.WriterSink
		ctx  context.Context
		want error
	}{
		{"writer fails", alerts.NewWriterSink(failWriter{}), context.Background(), errWriter},
		{"flush fails", alerts.NewWriterSink(bufio.NewWriterSize(failWriter{}, 1<<20)), context.Background(), errWriter},
		{"context done", alerts.NewWriterSink(&bytes.Buffer{}), canceled, context.Canceled},
	}
	for _, tt := range tests {
		if err := tt.w.Write(tt.ctx, alertstest.Sample()); !errors.Is(err, tt.want) {
			t.Errorf("%s: Write = %v; want %v", tt.name, err, tt.want)
		}
	}
}

// TestWriterSinkKeepsHTMLCharacters: a description with <, > and & is
// written as is on stdout (the record's own encoder must not escape it).
func TestWriterSinkKeepsHTMLCharacters(t *testing.T) {
	var out bytes.Buffer
	s := alerts.NewWriterSink(&out)
	if err := s.Write(context.Background(), []alerts.Alert{{Kind: alerts.KindMatch, Query: "q", Description: "amount > 1000 & <5 hops"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"description":"amount > 1000 & <5 hops"`) {
		t.Errorf("stdout record %s; want the description unescaped", out.String())
	}
}

package alerts

import "testing"

func TestWriterSinkStdoutDefault(t *testing.T) {
	if s := NewWriterSink(nil); s.w == nil {
		t.Error("NewWriterSink(nil) has no writer; want os.Stdout")
	}
}

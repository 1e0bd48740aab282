package datasets

import (
	"errors"
	"io"
	"testing"
	"time"
)

// endless yields one byte forever: a line that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// Closing Done stops Scan however the input behaves — a pipe that sends
// nothing, or a line that never ends — with ErrStopped, and Close returns
// without waiting for the read that never returns.
func TestDoneStopsScan(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	for name, in := range map[string]io.Reader{"silent pipe": pr, "endless line": endless{}} {
		done := make(chan struct{})
		r := Open([]string{"-"}, in)
		r.Done = done
		got := make(chan bool, 4)
		go func() {
			for r.Scan() {
				got <- true
			}
			got <- false
		}()
		time.Sleep(50 * time.Millisecond)
		close(done)
		select {
		case ok := <-got:
			if ok {
				t.Fatalf("%s: a case after the stop", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Scan still waiting 10 s after Done", name)
		}
		if !errors.Is(r.Err(), ErrStopped) {
			t.Errorf("%s: Err = %v, want ErrStopped", name, r.Err())
		}
		closed := make(chan error, 1)
		go func() { closed <- r.Close() }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Close waits for a read that never returns", name)
		}
	}
}

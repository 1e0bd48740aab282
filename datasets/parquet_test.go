package datasets

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// Layout 1: nested Parquet groups, lists and maps; arguments as a JSON column.
type pqMessage struct {
	Role    string `parquet:"role"`
	Content string `parquet:"content"`
}

type pqDecision struct {
	RuleID     string   `parquet:"rule_id"`
	Result     string   `parquet:"result"`
	Confidence *float64 `parquet:"confidence,optional"`
}

type pqRecorded struct {
	Judge     string       `parquet:"judge"`
	LatencyMS float64      `parquet:"latency_ms"`
	Status    string       `parquet:"status,optional"`
	Error     string       `parquet:"error,optional"`
	Decisions []pqDecision `parquet:"decisions,list"`
}

type pqNested struct {
	ID        string    `parquet:"id"`
	SessionID string    `parquet:"session_id"`
	Seq       int64     `parquet:"seq"`
	Time      time.Time `parquet:"time,timestamp(millisecond)"`
	HookPoint string    `parquet:"hook_point"`
	Piece     string    `parquet:"piece,optional"`
	Movement  string    `parquet:"movement,optional"`
	UserRole  string    `parquet:"user_role,optional"`
	Workspace string    `parquet:"workspace,optional"`
	Tool      struct {
		Name           string `parquet:"name"`
		Category       string `parquet:"category,optional"`
		Arguments      string `parquet:"arguments,json"` // parquet-go v0.32 cannot write an optional JSON column in a group
		ArgumentsValid *bool  `parquet:"arguments_valid,optional"`
	} `parquet:"tool"`
	Context struct {
		LatestUserMessage    string      `parquet:"latest_user_message,optional"`
		RecentMessages       []pqMessage `parquet:"recent_messages,list"`
		ApprovalState        string      `parquet:"approval_state,optional"`
		ApprovedFingerprints []string    `parquet:"approved_fingerprints,list"`
	} `parquet:"context"`
	Labels          map[string]Label `parquet:"labels"`
	ExpectedAction  Action           `parquet:"expected_action,optional"`
	ApprovalOutcome ApprovalOutcome  `parquet:"approval_outcome,optional"`
	Tags            []string         `parquet:"tags,list"`
	Recorded        []pqRecorded     `parquet:"recorded,list"`
}

// Layout 2: every nested field as JSON text in a string column.
type pqFlat struct {
	ID              string          `parquet:"id"`
	SessionID       string          `parquet:"session_id,optional"`
	Seq             int64           `parquet:"seq,optional"`
	Time            string          `parquet:"time,optional"`
	HookPoint       string          `parquet:"hook_point,optional"`
	Piece           string          `parquet:"piece,optional"`
	Movement        string          `parquet:"movement,optional"`
	UserRole        string          `parquet:"user_role,optional"`
	Workspace       string          `parquet:"workspace,optional"`
	Tool            string          `parquet:"tool"`
	Context         string          `parquet:"context,optional"`
	Labels          string          `parquet:"labels,optional"`
	ExpectedAction  Action          `parquet:"expected_action,optional"`
	ApprovalOutcome ApprovalOutcome `parquet:"approval_outcome,optional"`
	Tags            string          `parquet:"tags,optional"`
	Recorded        string          `parquet:"recorded,optional"`
}

func sampleSlice(t *testing.T, n int) []*Case {
	t.Helper()
	r := Open([]string{"-"}, SampleCases())
	defer r.Close()
	var out []*Case
	for len(out) < n && r.Scan() {
		if err := r.Record().Err; err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Record().Case)
	}
	return out
}

func toNested(c *Case) pqNested {
	var p pqNested
	p.ID, p.SessionID, p.Seq, p.Time, p.HookPoint = c.ID, c.SessionID, c.Seq, *c.Time, c.HookPoint
	p.Piece, p.Movement, p.UserRole, p.Workspace = c.Piece, c.Movement, c.UserRole, c.Workspace
	p.Tool.Name, p.Tool.Category, p.Tool.ArgumentsValid = c.Tool.Name, c.Tool.Category, c.Tool.ArgumentsValid
	p.Tool.Arguments = "{}"
	if c.Tool.Arguments != nil {
		b, _ := json.Marshal(c.Tool.Arguments)
		p.Tool.Arguments = string(b)
	}
	p.Context.LatestUserMessage, p.Context.ApprovalState = c.Context.LatestUserMessage, c.Context.ApprovalState
	for _, m := range c.Context.RecentMessages {
		p.Context.RecentMessages = append(p.Context.RecentMessages, pqMessage(m))
	}
	p.Context.ApprovedFingerprints = c.Context.ApprovedFingerprints
	p.Labels, p.ExpectedAction, p.ApprovalOutcome, p.Tags = c.Labels, c.ExpectedAction, c.ApprovalOutcome, c.Tags
	for _, rc := range c.Recorded {
		pr := pqRecorded{Judge: rc.Judge, LatencyMS: rc.LatencyMS, Status: rc.Status, Error: rc.Error}
		for _, d := range rc.Decisions {
			pr.Decisions = append(pr.Decisions, pqDecision(d))
		}
		p.Recorded = append(p.Recorded, pr)
	}
	return p
}

func toFlat(c *Case) pqFlat {
	js := func(v any) string {
		if reflect.ValueOf(v).IsZero() {
			return ""
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	p := pqFlat{ID: c.ID, SessionID: c.SessionID, Seq: c.Seq, HookPoint: c.HookPoint, Piece: c.Piece,
		Movement: c.Movement, UserRole: c.UserRole, Workspace: c.Workspace, Tool: js(c.Tool),
		Context: js(c.Context), Labels: js(c.Labels), ExpectedAction: c.ExpectedAction,
		ApprovalOutcome: c.ApprovalOutcome, Tags: js(c.Tags), Recorded: js(c.Recorded)}
	if c.Time != nil {
		p.Time = c.Time.Format(time.RFC3339Nano)
	}
	return p
}

func writeParquet[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.MaxRowsPerRowGroup(100))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Both Parquet layouts read back to the same cases as the JSONL they were
// made from, rows named file:N.
func TestReaderParquet(t *testing.T) {
	t.Parallel()
	cases := sampleSlice(t, 700)
	var nested []pqNested
	var flat []pqFlat
	for _, c := range cases {
		nested = append(nested, toNested(c))
		flat = append(flat, toFlat(c))
	}
	dir := t.TempDir()
	np, fp := filepath.Join(dir, "nested.parquet"), filepath.Join(dir, "flat.parquet")
	writeParquet(t, np, nested)
	writeParquet(t, fp, flat)
	for _, path := range []string{np, fp} {
		recs, err := readAll(t, Open([]string{path}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(cases) {
			t.Fatalf("%s: %d records, want %d", path, len(recs), len(cases))
		}
		for i, rec := range recs {
			if rec.Err != nil {
				t.Fatalf("%s: %v", path, rec.Err)
			}
			got, want := *rec.Case, *cases[i]
			if wantSrc := path + ":" + itoa(i+1); got.Source != wantSrc {
				t.Fatalf("source %q, want %q", got.Source, wantSrc)
			}
			got.Source, want.Source = "", ""
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Fatalf("%s row %d:\n got %s\nwant %s", filepath.Base(path), i+1, gj, wj)
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// A bad row is a LineError naming the row; the rows around it still read.
func TestReaderParquetBadRow(t *testing.T) {
	t.Parallel()
	rows := []pqFlat{
		{ID: "a", Tool: `{"name":"Bash"}`},
		{ID: "b", HookPoint: "tool.sometimes", Tool: `{"name":"Bash"}`},
		{ID: "c", Tool: `{"name":"Bash","arguments":"rm"}`},
		{ID: "d", Tool: `{"name":"Read"}`},
		{ID: "a", Tool: `{"name":"Read"}`},
	}
	path := filepath.Join(t.TempDir(), "bad.parquet")
	writeParquet(t, path, rows)
	recs, err := readAll(t, Open([]string{path}, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"",
		path + `:2: hook_point: unknown value "tool.sometimes" (want one of tool.before, tool.after, tool.denied, completion.before_accept, runtime.error)`,
		path + ":3: tool.arguments: expected object, got string", "",
		path + `:5: id: duplicate id "a" (first at ` + path + ":1)"}
	for i, rec := range recs {
		got := ""
		if rec.Err != nil {
			got = rec.Err.Error()
		}
		if got != want[i] {
			t.Errorf("row %d: got %q, want %q", i+1, got, want[i])
		}
	}
}

func TestReaderParquetFromStdin(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.parquet")
	writeParquet(t, path, []pqFlat{{ID: "a", Tool: `{"name":"Bash"}`}})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readAll(t, Open([]string{"-"}, bytes.NewReader(data)))
	if err == nil || !strings.Contains(err.Error(), "Parquet input needs a file") {
		t.Errorf("got %v", err)
	}
}

func TestReaderParquetCorrupt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "corrupt.parquet")
	if err := os.WriteFile(path, []byte("PAR1 this is not really parquet PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := readAll(t, Open([]string{path}, nil))
	if len(recs) != 0 || err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("got %v, %v", recs, err)
	}
}

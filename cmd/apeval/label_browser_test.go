//go:build browser

package main

// The labeling page in headless Chromium (make browser-test, part of make
// ci; it installs Debian's chromium when missing): label 20 items with the
// keyboard alone, kill the server mid-way, restart it, and the labels file
// holds exactly what was pressed; no console error, no horizontal scroll at
// 1280 px, the judges' answers absent while labeling and shown in review
// mode.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/browsertest"
	"github.com/apeval/apeval/metrics"
)

// unlabeledSampleRun writes the embedded sample without its labels, runs
// it with the two recorded judges and returns the directory, the dataset
// and the policy paths.
func unlabeledSampleRun(t *testing.T, bin string) (dir, cases, policy string) {
	t.Helper()
	dir = t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() <= 3) {
			t.Fatalf("apeval %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("datasets", "sample", "--out", filepath.Join(dir, "s"))
	cases = filepath.Join(dir, "unlabeled.jsonl")
	policy = filepath.Join(dir, "s", "policy.toml")
	stripLabels(t, filepath.Join(dir, "s", "cases.jsonl"), cases)
	run("run", "--dataset", cases, "--policy", policy,
		"--judge", "recorded:ollama/qwen2.5:3b", "--judge", "recorded:ollama/qwen2.5:7b-instruct-q4_K_M",
		"--out", filepath.Join(dir, "run"))
	return filepath.Join(dir, "run"), cases, policy
}

func stripLabels(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "labels")
		j, _ := json.Marshal(m)
		out.Write(append(j, '\n'))
	}
	if err := os.WriteFile(to, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// server is a running `apeval label serve`.
type server struct {
	cmd *exec.Cmd
	url string
}

func startServe(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"label", "serve"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("no URL from label serve: %v", err)
	}
	s := &server{cmd: cmd, url: strings.TrimSpace(line)}
	t.Cleanup(func() { s.kill() })
	return s
}

// kill stops the server the hard way (SIGKILL): nothing gets a chance to
// flush.
func (s *server) kill() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Signal(syscall.SIGKILL)
		s.cmd.Wait()
	}
}

func TestLabelServeBrowser(t *testing.T) {
	t.Parallel()
	bin := apevalBinary(t)
	dir, cases, policy := unlabeledSampleRun(t, bin)
	queue := filepath.Join(t.TempDir(), "queue.jsonl")
	if out, err := exec.Command(bin, "label", "queue", dir, "--budget", "40", "--seed", "3", "--out", queue).CombinedOutput(); err != nil {
		t.Fatalf("label queue: %v\n%s", err, out)
	}
	q, err := datasets.ReadSampleLabels([]string{queue}, true)
	if err != nil {
		t.Fatal(err)
	}
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	args := []string{queue, "--run", dir, "--labeler", "tester", "--labels", labels, "--dataset", cases, "--policy", policy}

	ctx, consoleErrs := browsertest.Open(t, 3*time.Minute)

	progress := func(n int) chromedp.Action[chromedp.Void] {
		want := fmt.Sprintf("%d of %d labeled", n, len(q))
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.getElementById("progress").textContent === %q`, want), chromedp.WithPollingTimeout(20*time.Second))
	}
	atItem := func(pos int) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("#item h2") && document.querySelector("#item h2").textContent.startsWith("Item %d of")`, pos+1), chromedp.WithPollingTimeout(20*time.Second))
	}
	press := func(k string) chromedp.Action[chromedp.Void] { return chromedp.KeyEvent(k) }
	checkLayout := func(when string) {
		t.Helper()
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if wide {
			t.Errorf("%s: horizontal scroll at 1280 px", when)
		}
	}

	// Expected file content: one line per key that labels, in order.
	type pressed struct {
		order int
		label string
	}
	var want []pressed

	s1 := startServe(t, bin, args...)
	if err := chromedp.Do(ctx, chromedp.Navigate(s1.url), progress(0), atItem(0)); err != nil {
		t.Fatal(err)
	}
	checkLayout("first item")
	// Blind: no judge answer and no stratum on the page while labeling.
	html, err := chromedp.Run(ctx, chromedp.OuterHTML("#item"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, "qwen2.5") || strings.Contains(html, "stratum") {
		t.Errorf("labeling mode shows judge answers: %s", html)
	}
	keys := []string{"m", "n", "n", "s", "m", "n", "n", "m", "n", "n"}
	// Every token masking left in what the judge saw is highlighted and
	// counted above the call (issue 34 point 2).
	maskedSeen := 0
	for i, k := range keys {
		counts, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`(() => {
			const it = document.getElementById("item");
			const tokens = (it.textContent.replace(/^\d+ masked spans?[^\n]*?wrote\./, "").match(/\[(?:MASKED|CARD|CVV|SSN|IBAN|PHONE|EMAIL:[^\]\s]+)\]/g) || []).length;
			const marks = it.querySelectorAll("mark.masked").length;
			const note = document.getElementById("masks");
			return [tokens, marks, note ? parseInt(note.textContent, 10) : 0];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if counts[0] != counts[1] || counts[1] != counts[2] {
			t.Errorf("item %d: %d masked tokens, %d highlighted, note says %d", i+1, counts[0], counts[1], counts[2])
		}
		maskedSeen += counts[1]
		if err := chromedp.Do(ctx, press(k), progress(i+1)); err != nil {
			t.Fatalf("key %d (%s): %v", i, k, err)
		}
		want = append(want, pressed{q[i].Order, map[string]string{"m": "match", "n": "no_match", "s": "skip"}[k]})
	}
	if maskedSeen == 0 {
		t.Error("no masked span in the first ten items: the check above checked nothing")
	}
	t.Logf("%d masked spans highlighted in the first ten items", maskedSeen)
	// Undo the tenth label, then label that item again with the other key.
	if err := chromedp.Do(ctx, press("u"), progress(9), atItem(9), press("m"), progress(10)); err != nil {
		t.Fatal(err)
	}
	want[9].label = "match"
	// Move back two items with the arrow, look, come back: nothing written.
	if err := chromedp.Do(ctx, press(kb.ArrowLeft), atItem(9), press(kb.ArrowLeft), atItem(8), press(kb.ArrowRight), atItem(9)); err != nil {
		t.Fatal(err)
	}
	// Review mode shows the judges; leaving it hides them again.
	if err := chromedp.Do(ctx, press("r"), chromedp.WaitVisible("#judges")); err != nil {
		t.Fatal(err)
	}
	if html, err = chromedp.Run(ctx, chromedp.OuterHTML("#judges")); err != nil || !strings.Contains(html, "qwen2.5") {
		t.Errorf("review mode: %v %s", err, html)
	}
	checkLayout("review mode")
	if err := chromedp.Do(ctx, press("r"), chromedp.Poll[chromedp.Void](`!document.getElementById("judges")`)); err != nil {
		t.Fatal(err)
	}

	// Kill the server mid-way; a restart resumes at the first unlabeled item.
	s1.kill()
	s2 := startServe(t, bin, args...)
	if err := chromedp.Do(ctx, chromedp.Navigate(s2.url), progress(10), atItem(10)); err != nil {
		t.Fatal(err)
	}
	keys2 := []string{"n", "m", "n", "n", "s", "n", "m", "n", "n", "n"}
	for i, k := range keys2 {
		if err := chromedp.Do(ctx, press(k), progress(11+i)); err != nil {
			t.Fatalf("key %d after restart (%s): %v", i, k, err)
		}
		want = append(want, pressed{q[10+i].Order, map[string]string{"m": "match", "n": "no_match", "s": "skip"}[k]})
	}
	panel, err := chromedp.Run(ctx, chromedp.Text("#panel"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(panel, "sampled") || !strings.Contains(panel, "precision_min") {
		t.Errorf("panel: %q", panel)
	}
	// Every rule and judge says where it stands sequentially ("decided
	// after N labels" / "open, about N more labels"; docs/sequential.md).
	rowsSeq, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.querySelectorAll("#panel .panel-row").length, document.querySelectorAll("#panel .seq").length]`))
	if err != nil {
		t.Fatal(err)
	}
	if rowsSeq[0] == 0 || rowsSeq[0] != rowsSeq[1] || !strings.Contains(panel, "sequential: ") {
		t.Errorf("%d panel rows, %d sequential standings: %q", rowsSeq[0], rowsSeq[1], panel)
	}
	// A row with a queue-labeled figure says which interval it prints, as
	// summary.json's precision_interval and interval_note do.
	intervals, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#panel .interval")].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(intervals) == 0 {
		t.Errorf("no panel row says its interval method: %q", panel)
	}
	for _, s := range intervals {
		if !strings.HasPrefix(s, "intervals: ") && !strings.HasPrefix(s, "precision's interval: ") && !strings.HasPrefix(s, "recall's interval: ") ||
			!strings.Contains(s, metrics.IntervalDraws) && !strings.Contains(s, metrics.IntervalTwoPhase+", not the stratified draws: ") {
			t.Errorf("panel interval %q names no method", s)
		}
	}
	checkLayout("after 20 labels")
	s2.kill()

	got, err := datasets.ReadSampleLabels([]string{labels}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("labels file has %d lines, %d keys labeled", len(got), len(want))
	}
	for i, g := range got {
		if g.Order != want[i].order || string(g.Label) != want[i].label || g.Labeler != "tester" {
			t.Errorf("line %d: order %d %s by %s, pressed order %d %s", i+1, g.Order, g.Label, g.Labeler, want[i].order, want[i].label)
		}
	}
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console: %v", errs)
	}
}

package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/apeval/apeval/metrics"
)

// JUnit XML (the de-facto schema GitHub, GitLab and Jenkins parse): one
// testsuite per judge, one testcase per criterion × rule (judge-level
// criteria under rule "*"). PASS passes; FAIL (confirmed by the data) is a
// <failure type="FAIL"> carrying the figures; N/A is <skipped> with its
// reason; INCONCLUSIVE is a <failure type="inconclusive"> (the data do not
// show the rule safe) unless --inconclusive=pass makes it <skipped>, so the
// CI view agrees with the exit code. For the same reason the baseline
// judge of a comparison, which
// the run's verdict leaves out, reports its criteria as <skipped> with the
// status in the message.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// figures renders a criterion's numbers for a failure body.
func figures(c metrics.Criterion) string {
	var parts []string
	add := func(k string, v *float64) {
		if v != nil {
			parts = append(parts, k+"="+strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	add("estimate", c.Estimate)
	add("lo", c.Lo)
	add("hi", c.Hi)
	parts = append(parts, "threshold="+strconv.FormatFloat(c.Threshold, 'g', -1, 64), "n="+itoa(c.N))
	add("p", c.PValue)
	if c.MoreSamples != nil {
		parts = append(parts, "more_samples="+itoa(*c.MoreSamples))
	}
	return strings.Join(parts, " ")
}

// WriteJUnit writes junit.xml. A policy criterion (the judge-required
// rate: no judge controls it) is one test case in a suite of its own,
// "(policy)", ahead of the judges' suites, when every judge shows it alike
// (one run's judges do); it blocks the feature whatever judge is chosen.
func (rep *Report) WriteJUnit(w io.Writer) error {
	s := rep.Summary
	root := junitSuites{Name: "apeval", Time: "0"}
	stamp := ""
	if !rep.Run.Created.IsZero() {
		stamp = rep.Run.Created.UTC().Format(time.RFC3339)
	}
	rowsOf := func(j *metrics.JudgeSummary) []*metrics.Row {
		rows := j.Rules
		if j.Total != nil {
			rows = append([]*metrics.Row{j.Total}, rows...)
		}
		return rows
	}
	add := func(suite *junitSuite, rule string, c metrics.Criterion, gated bool) {
		tc := junitCase{Classname: suite.Name, Name: rule + "/" + c.Name, Time: "0"}
		msg := fmt.Sprintf("%s: %s", c.Status, Explain(c))
		if rep.Weak() && onLabels(c.Name+" "+msg) {
			tc.Name += " (weak labels)"
			msg += " (on weak labels: " + WeakBanner + ")"
		}
		switch {
		case !gated && c.Status != metrics.StatusPass:
			tc.Skipped = &junitMessage{Message: "baseline, not part of the verdict: " + msg}
			suite.Skipped++
		case c.Status == metrics.StatusFail:
			tc.Failure = &junitMessage{Message: msg, Type: string(c.Status), Body: figures(c)}
			suite.Failures++
		case c.Status == metrics.StatusInconclusive && rep.Inconclusive == "pass":
			tc.Skipped = &junitMessage{Message: msg + " (--inconclusive=pass)"}
			tc.SystemOut = figures(c)
			suite.Skipped++
		case c.Status == metrics.StatusInconclusive:
			tc.Failure = &junitMessage{Message: msg, Type: "inconclusive", Body: figures(c)}
			suite.Failures++
		case c.Status == metrics.StatusNA:
			tc.Skipped = &junitMessage{Message: msg}
			suite.Skipped++
		default:
			tc.SystemOut = msg
		}
		suite.Cases = append(suite.Cases, tc)
		suite.Tests++
	}
	appendSuite := func(suite junitSuite) {
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		root.Skipped += suite.Skipped
		root.Suites = append(root.Suites, suite)
	}
	// The policy's criteria, once, when every judge shows them alike.
	type policyCase struct {
		rule string
		c    metrics.Criterion
		text string
	}
	policyOf := func(j *metrics.JudgeSummary) []policyCase {
		var out []policyCase
		for _, r := range rowsOf(j) {
			for _, c := range r.Criteria {
				if metrics.IsPolicyCriterion(c.Name) {
					out = append(out, policyCase{r.RuleID, c, string(c.Status) + Explain(c)})
				}
			}
		}
		return out
	}
	shared := len(s.Judges) > 1
	var policy []policyCase
	if shared {
		policy = policyOf(s.Judges[0])
		for _, j := range s.Judges[1:] {
			p := policyOf(j)
			if len(p) != len(policy) {
				shared = false
				break
			}
			for i := range p {
				if p[i].rule != policy[i].rule || p[i].c.Name != policy[i].c.Name || p[i].text != policy[i].text {
					shared = false
				}
			}
		}
		shared = shared && len(policy) > 0
	}
	if shared {
		suite := junitSuite{Name: "(policy)", Time: "0", Timestamp: stamp, Properties: []junitProperty{
			{"verdict", string(s.Judges[0].PolicyVerdict)}, {"run_id", s.Judges[0].RunID},
		}}
		if rep.Weak() {
			suite.Properties = append(suite.Properties, junitProperty{"label_source", "weak"})
		}
		for _, p := range policy {
			add(&suite, p.rule, p.c, true)
		}
		appendSuite(suite)
	}
	for _, j := range s.Judges {
		suite := junitSuite{Name: j.Judge, Time: "0", Timestamp: stamp, Properties: []junitProperty{
			{"verdict", string(j.Verdict)}, {"baseline", strconv.FormatBool(j.IsBaseline)},
			{"model", j.Model}, {"model_digest", j.ModelDigest}, {"prompt_version", j.PromptVersion},
			{"run_id", j.RunID},
		}}
		if rep.Weak() {
			suite.Properties = append(suite.Properties, junitProperty{"label_source", "weak"})
		}
		gated := !j.IsBaseline || len(s.Judges) == 1
		for _, r := range rowsOf(j) {
			for _, c := range r.Criteria {
				if shared && metrics.IsPolicyCriterion(c.Name) {
					continue
				}
				add(&suite, r.RuleID, c, gated)
			}
		}
		appendSuite(suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

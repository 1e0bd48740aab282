package reports

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
)

// parsedSuites is the subset of JUnit a CI parser reads.
type parsedSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnit(t *testing.T) {
	t.Parallel()
	s := fixtureSummary()
	var fail, open, na, total, baseNotPass, policy int
	seen := map[string]bool{}
	for _, cr := range criteriaResults(s) {
		// A policy criterion is one case, in the (policy) suite, gated:
		// it blocks the feature whatever judge is chosen.
		isPolicy := metrics.IsPolicyCriterion(cr.c.Name)
		if isPolicy {
			if seen[cr.rule+"/"+cr.c.Name] {
				continue
			}
			seen[cr.rule+"/"+cr.c.Name] = true
			policy++
		}
		total++
		if cr.judge == s.Baseline && !isPolicy {
			// The baseline is not gated: everything but PASS is skipped.
			if cr.c.Status != metrics.StatusPass {
				baseNotPass++
			}
			continue
		}
		switch cr.c.Status {
		case metrics.StatusFail:
			fail++
		case metrics.StatusInconclusive:
			open++
		case metrics.StatusNA:
			na++
		}
	}
	if fail == 0 || open == 0 || na == 0 || baseNotPass == 0 || policy == 0 {
		t.Fatalf("fixture should have every status: fail %d open %d na %d", fail, open, na)
	}
	tests := []struct {
		inconclusive            string
		wantFailed, wantSkipped int
	}{
		// INCONCLUSIVE is a failure of type "inconclusive" unless
		// --inconclusive=pass makes it skipped; N/A is always skipped.
		{"", fail + open, na + baseNotPass},
		{"fail", fail + open, na + baseNotPass},
		{"pass", fail, open + na + baseNotPass},
	}
	for _, tt := range tests {
		t.Run("inconclusive="+tt.inconclusive, func(t *testing.T) {
			rep := &Report{Run: testInfo(), Summary: s, Inconclusive: tt.inconclusive}
			var b bytes.Buffer
			if err := rep.WriteJUnit(&b); err != nil {
				t.Fatal(err)
			}
			var got parsedSuites
			if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Tests != total || got.Failures != tt.wantFailed || got.Skipped != tt.wantSkipped {
				t.Fatalf("tests/failures/skipped = %d/%d/%d, want %d/%d/%d",
					got.Tests, got.Failures, got.Skipped, total, tt.wantFailed, tt.wantSkipped)
			}
			var cases, failures, skipped int
			for _, su := range got.Suites {
				n, f, sk := 0, 0, 0
				for _, c := range su.Cases {
					n++
					if c.Classname != su.Name {
						t.Errorf("classname %q in suite %q", c.Classname, su.Name)
					}
					if c.Failure != nil {
						f++
						if c.Failure.Message == "" || c.Failure.Body == "" {
							t.Errorf("%s: failure without message or figures", c.Name)
						}
						inconclusive := strings.HasPrefix(c.Failure.Message, "INCONCLUSIVE")
						if want := map[bool]string{true: "inconclusive", false: "FAIL"}[inconclusive]; c.Failure.Type != want {
							t.Errorf("%s: failure type %q, want %q", c.Name, c.Failure.Type, want)
						}
					}
					if c.Skipped != nil {
						sk++
						if strings.HasPrefix(c.Skipped.Message, "N/A") && len(c.Skipped.Message) < len("N/A: x") {
							t.Errorf("%s: N/A skipped without its reason", c.Name)
						}
					}
				}
				if n != su.Tests || f != su.Failures || sk != su.Skipped {
					t.Errorf("suite %s counts %d/%d/%d, cases say %d/%d/%d", su.Name, su.Tests, su.Failures, su.Skipped, n, f, sk)
				}
				cases, failures, skipped = cases+n, failures+f, skipped+sk
			}
			if cases != total || failures != tt.wantFailed || skipped != tt.wantSkipped {
				t.Errorf("cases %d/%d/%d", cases, failures, skipped)
			}
			// The policy's suite comes first and holds only policy criteria;
			// no judge's suite repeats them.
			for i, su := range got.Suites {
				for _, c := range su.Cases {
					name := strings.TrimSuffix(c.Name[strings.Index(c.Name, "/")+1:], " (weak labels)")
					if metrics.IsPolicyCriterion(name) != (su.Name == "(policy)") || (su.Name == "(policy)") != (i == 0) {
						t.Errorf("suite %d %q holds %s", i, su.Name, c.Name)
					}
				}
			}
			if got.Suites[0].Name != "(policy)" || got.Suites[0].Tests != policy {
				t.Errorf("first suite %q with %d cases, want (policy) with %d", got.Suites[0].Name, got.Suites[0].Tests, policy)
			}
			if tt.inconclusive == "" {
				golden(t, "junit.xml", b.Bytes())
			}
		})
	}
}

package datasets

import (
	"slices"
	"testing"
)

func TestStrayLabelsNamesRulesThePolicyLacks(t *testing.T) {
	s := NewStrayLabels([]string{"rm-rf", "curl-pipe"})
	s.Check(&Case{ID: "c1", Labels: map[string]Label{"rm-rf": LabelMatch, "rm-fr": LabelMatch}})
	s.Check(&Case{ID: "c2", Labels: map[string]Label{"rm-fr": LabelNoMatch, "curl_pipe": LabelMatch}})
	s.Check(&Case{ID: "c3", Labels: map[string]Label{"curl-pipe": LabelNoMatch}})
	if got, want := s.IDs(), []string{"curl_pipe", "rm-fr"}; !slices.Equal(got, want) {
		t.Fatalf("IDs = %v, want %v", got, want)
	}
	want := `labels name rules the policy does not have, so they count nowhere (a typo?): "curl_pipe" (1 case(s), first c2), "rm-fr" (2 case(s), first c1); the policy's rules are: curl-pipe, rm-rf`
	if got := s.Message(); got != want {
		t.Errorf("Message =\n%s\nwant\n%s", got, want)
	}
	if got := NewStrayLabels([]string{"a"}).Message(); got != "" {
		t.Errorf("no stray label: Message = %q, want empty", got)
	}
	var none *StrayLabels
	if got := none.Message(); got != "" {
		t.Errorf("nil: Message = %q, want empty", got)
	}
}

func TestWeakSwapSetsPeoplesLabelsAside(t *testing.T) {
	var w WeakSwap
	both := &Case{ID: "a", Labels: map[string]Label{"r": LabelNoMatch}, WeakLabels: map[string]Label{"r": LabelMatch}}
	weakOnly := &Case{ID: "b", WeakLabels: map[string]Label{"r": LabelNoMatch}}
	neither := &Case{ID: "c"}
	for _, c := range []*Case{both, weakOnly, neither} {
		w.Swap(c)
	}
	if both.Labels["r"] != LabelMatch || both.WeakLabels != nil {
		t.Errorf("after Swap: labels %v, weak %v; want the weak label as the label and no weak labels", both.Labels, both.WeakLabels)
	}
	if len(neither.Labels) != 0 {
		t.Errorf("a case without weak labels has labels %v after Swap", neither.Labels)
	}
	want := "--weak-labels: precision and recall are computed on weak labels (2 of 3 cases carry one); they are a signal, not ground truth; the dataset's own labels of 1 cases are set aside, not mixed in"
	if got := w.Message(); got != want {
		t.Errorf("Message =\n%s\nwant\n%s", got, want)
	}
}

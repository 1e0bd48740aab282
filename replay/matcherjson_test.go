package replay

import (
	"encoding/json"
	"testing"
)

// A rule's matchers and boundary read, as JSON (apeval diff's policy
// text), with the policy file's keys and only the keys given: the diff
// printed Go's field names and every unset one
// ({"CommandPrefix":["git"],"CommandRegex":null,…,"Unless":null}).
func TestMatcherJSONUsesPolicyKeys(t *testing.T) {
	p, err := ParsePolicy([]byte(`schema = "apeval.policy/v1"
[[rule]]
id = "del"
condition = "deletes something"
action = "deny_current_tool"
class = "dangerous"
[rule.when]
command_prefix = ["rm"]
network = false
[[rule.when.unless]]
tool = ["Read"]
[rule.baseline]
command_regex = ["-rf"]
[[rule]]
id = "edge"
class = "stop"
[rule.boundary]
kind = "network"
review_at = 1
pause_at = 2
`), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{p.Rule("del").When, `{"command_prefix":["rm"],"network":false,"unless":[{"tool":["Read"]}]}`},
		{p.Rule("del").Baseline, `{"command_regex":["-rf"]}`},
		{p.Rule("edge").Boundary, `{"kind":"network","review_at":1,"pause_at":2}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("got  %s\nwant %s", b, tc.want)
		}
	}
}

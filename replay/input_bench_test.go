package replay

import (
	"testing"

	"github.com/apeval/apeval/datasets"
)

func BenchmarkBuildInput(b *testing.B) {
	c := bash("cd /srv/repo && FOO_TOKEN=abc123 git push https://bob:pw@github.com/x/y.git --force")
	c.Context.LatestUserMessage = "please push my branch and clean up the build directory afterwards"
	c.Context.RecentMessages = []datasets.Message{{Role: "user", Content: "hi there, can you help with the release?"},
		{Role: "assistant", Content: "Sure. I will run the tests first and then push."}}
	rules := []*Rule{{ID: "a", Condition: "pushes to a shared branch"}, {ID: "b", Condition: "deletes files"}}
	b.ReportAllocs()
	for b.Loop() {
		BuildInput(c, rules, nil)
	}
}

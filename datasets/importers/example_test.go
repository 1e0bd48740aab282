package importers_test

import (
	"fmt"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/importers"
)

// Trajectory events become cases: one session, numbered in order, the
// approved network call marked as approved.
func ExampleImport() {
	events := `{"kind":"command","target":"/tmp/agent-demo/tests","session":"demo"}
{"kind":"network","target":"https://example.test/api?token=abc123secret456","session":"demo","approved":true}
`
	sum, err := importers.Import("trajectory-events", []string{"-"},
		importers.Options{Stdin: strings.NewReader(events), Workspace: "/tmp/agent-demo"},
		func(c *datasets.Case) error {
			fmt.Println(c.ID, c.Seq, c.Tool.Name, c.Tool.Category, c.Tool.Arguments, c.Context.ApprovalState)
			return nil
		}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Records, "records,", sum.Cases, "cases,", sum.Sessions, "session")
	// Output:
	// traj-demo-L1 1 shell command_execution map[cwd:/tmp/agent-demo/tests] none
	// traj-demo-L2 2 fetch web_search map[url:https://example.test/api?token=[MASKED]] approved
	// 2 records, 2 cases, 1 session
}

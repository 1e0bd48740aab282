package rundir

import (
	"time"

	"github.com/apeval/apeval/replay"
)

// caseColumns are the columns decisions.parquet and gates.parquet both end
// with, so an analyst needs no join back to the dataset: which tool call
// the row is about and when. Absent values are null, never "".
type caseColumns struct {
	ToolName  string     `parquet:"tool_name,optional,dict"`
	Category  string     `parquet:"category,optional,dict"`
	HookPoint string     `parquet:"hook_point,optional,dict"`
	CaseTime  *time.Time `parquet:"case_time,optional,timestamp(microsecond)"`
	// RunStarted is the run's start time (run.json "created"), the same on
	// every row, so files of several runs can be stacked and told apart.
	RunStarted time.Time `parquet:"run_started,timestamp(microsecond)"`

	caseT time.Time
}

func (c *caseColumns) fill(r *replay.Result, started time.Time) {
	c.ToolName, c.Category, c.HookPoint = r.ToolName, r.Category, r.HookPoint
	if r.Time != nil {
		c.caseT = r.Time.UTC()
		c.CaseTime = &c.caseT
	} else {
		c.CaseTime = nil
	}
	c.RunStarted = started.UTC()
}

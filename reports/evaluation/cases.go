package evaluation

import (
	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// DescribeCases reads the dataset once more (r, a fresh pass) for the few
// cases the false-positive/negative lists kept, and gives them their tool
// and masked arguments; only those cases are held, so memory stays
// bounded. It closes r.
func DescribeCases(cl *reports.CaseLists, r *datasets.Reader) {
	defer r.Close()
	ids := cl.CaseIDs()
	for len(ids) > 0 && r.Scan() {
		rec := r.Record()
		if rec.Err != nil || !ids[rec.Case.ID] {
			continue
		}
		cl.Describe(rec.Case.ID, rec.Case.Tool.Name, rec.Case.Tool.Arguments)
		delete(ids, rec.Case.ID)
	}
}

// DescribeFrom is a RunSet.Describe for the reading commands: the decision
// files hold the tool's name but never its arguments, so it reads the
// datasets run.json names when they are still there unchanged (same
// SHA-256; objects through urls), or the embedded sample; otherwise it
// says in the lists' note why they show no arguments.
func DescribeFrom(urls datasets.Opener) func(*reports.CaseLists, rundir.RunInfo) {
	return func(cl *reports.CaseLists, info rundir.RunInfo) {
		if len(cl.CaseIDs()) == 0 {
			return
		}
		r, why := openDatasets(info, urls)
		if r == nil {
			cl.Note = "tool arguments are not in the decision files, and " + why
			return
		}
		DescribeCases(cl, r)
	}
}

// openDatasets opens the datasets run.json names when they are still there
// unchanged (same SHA-256; objects through urls), or the embedded sample;
// otherwise it returns nil and why not ("the dataset D is not available
// unchanged to read them from").
func openDatasets(info rundir.RunInfo, urls datasets.Opener) (*datasets.Reader, string) {
	var paths []string
	sample := false
	for _, d := range info.Datasets {
		switch {
		case d.Name == datasets.SampleName && d.SHA256 == datasets.SampleSHA256():
			sample = true
		case d.SHA256 != "" && datasets.FileSHA256(d.Name, urls) == d.SHA256:
			paths = append(paths, d.Name)
		default:
			return nil, "the dataset " + d.Name + " is not available unchanged to read them from"
		}
	}
	if sample && len(paths) > 0 || len(info.Datasets) == 0 {
		return nil, "run.json names no dataset to read them from"
	}
	var r *datasets.Reader
	if sample {
		r = datasets.Open([]string{"-"}, datasets.SampleCases())
		r.StdinName = datasets.SampleName
	} else {
		r = datasets.Open(paths, nil)
	}
	r.URLs = urls
	return r, ""
}

package datasets

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the sample dataset and policy ship inside the binary
	"encoding/hex"
	"io"
)

// SampleName is the file name the embedded sample's records carry in
// messages ("sample:12").
const SampleName = "sample"

//go:embed sample/cases.jsonl
var sampleCases []byte

//go:embed sample/policy.toml
var samplePolicy []byte

//go:embed sample/apeval.toml
var sampleConfig []byte

// SampleConfig returns a copy of the project file apeval init writes
// beside the sample (apeval.toml: the sample's files and its two recorded
// judges, every key shown, live-judge options and prices as comments).
func SampleConfig() []byte { return bytes.Clone(sampleConfig) }

// SampleCases returns a reader over the embedded sample dataset
// (apeval.case/v1 JSONL; see sample/README.md for how it was made).
func SampleCases() io.Reader { return bytes.NewReader(sampleCases) }

// SamplePolicy returns a copy of the embedded sample policy (apeval.policy/v1 TOML).
func SamplePolicy() []byte { return bytes.Clone(samplePolicy) }

// SampleSHA256 is the hex SHA-256 of the embedded sample dataset, for
// run metadata.
func SampleSHA256() string {
	h := sha256.Sum256(sampleCases)
	return hex.EncodeToString(h[:])
}

// SampleFile is one file apeval datasets sample or apeval init writes:
// its name in the target directory and its content.
type SampleFile struct {
	Name string
	Data []byte
}

// SampleFiles are the files that start a project from the sample, in the
// order they are written: cases.jsonl (every case's labels emptied when
// unlabeled: the sample as a team's imported logs look) and policy.toml;
// with a config name (apeval init's apeval.toml), the project file that
// names them comes first (SampleConfig).
func SampleFiles(unlabeled bool, config string) ([]SampleFile, error) {
	cases := bytes.Clone(sampleCases)
	if unlabeled {
		var err error
		if cases, err = Unlabeled(cases); err != nil {
			return nil, err
		}
	}
	files := []SampleFile{{"cases.jsonl", cases}, {"policy.toml", SamplePolicy()}}
	if config != "" {
		files = append([]SampleFile{{config, SampleConfig()}}, files...)
	}
	return files, nil
}

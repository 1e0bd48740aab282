package rundir

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Layouts of a run's decision files (RunInfo.Layout).
const (
	// LayoutFlat keeps decisions.parquet and gates.parquet in the run
	// directory, every judge in one pair of files.
	LayoutFlat = ""
	// LayoutHive writes judge=<identity>/decisions.parquet and
	// judge=<identity>/gates.parquet per judge; with the run directory named
	// RunDir(id) under one root, months of runs read as one table
	// partitioned by run_id and judge in DuckDB, Spark or Trino:
	//
	//	SELECT … FROM read_parquet('root/*/*/decisions.parquet', hive_partitioning = true)
	LayoutHive = "hive"
)

// ParseLayout reads an --out-layout value: flat (or "") or hive.
func ParseLayout(s string) (string, error) {
	switch s {
	case "", "flat":
		return LayoutFlat, nil
	case LayoutHive:
		return LayoutHive, nil
	}
	return "", fmt.Errorf("unknown layout %q: want flat or hive", s)
}

// RunDir is the name of a run's directory in the hive layout: run_id=<id>,
// the ID escaped as JudgeDir escapes judge identities.
func RunDir(runID string) string { return "run_id=" + hiveEscape(runID) }

// JudgeDir is the directory of one judge's files in the hive layout:
// judge=<identity> with the characters Hive escapes in partition values
// (/, :, =, %, control characters and a few more) written as %XX, which
// Hive, Spark, Trino and DuckDB decode back to the identity.
func JudgeDir(identity string) string { return "judge=" + hiveEscape(identity) }

// hiveEscape is Hive's FileUtils.escapePathName.
func hiveEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// partDirs lists the directories holding a run's decision and gate files,
// in the order ReadRun walks them.
func partDirs(dir string, info RunInfo) ([]string, error) {
	switch info.Layout {
	case LayoutFlat:
		return []string{dir}, nil
	case LayoutHive:
		var out []string
		for _, j := range info.Judges {
			out = append(out, filepath.Join(dir, JudgeDir(j.Identity)))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: layout %q is not one this apeval reads (flat or hive)", RunFile, info.Layout)
}

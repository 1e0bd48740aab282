#!/usr/bin/env bash
# make bench-public: the public labeled workloads (datasets/public: ASSEBench's
# security set and RedCode-Exec, shipped with their licences) imported and run
# through datasets/public/policy.toml's "unsafe-action" rule, so a team sees how
# a judge and a rule set behave on public data before their own.
#
# JUDGE (repeatable with spaces, default "none") picks the judges: "none" runs
# the deterministic side only — the rule's baseline regexes, reported as
# baseline_recall, and the fallback a gate takes when its judge is down; give a
# live judge to measure one, e.g. JUDGE="ollama:qwen2.5:3b". The sample's
# recorded judges cannot be used: they recorded answers for the sample's own
# cases, not for these (`--judge recorded:NAME` on these cases exits 2:
# "matches no recording in the dataset"; docs/import.md says more). Each
# line ends with the evidence check: the judged calls whose judge input
# masked or cut an argument the rule refers to.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${APEVAL:-./apeval}
[ -x "$bin" ] || go build -o "$bin" ./cmd/apeval
out=.cache/bench-public
mkdir -p "$out"
judges=()
for j in ${JUDGE:-none}; do judges+=(--judge "$j"); done

"$bin" datasets import --from assebench datasets/public/ASSEBench/AgentJudge-security.json.gz --out "$out/assebench.jsonl"
"$bin" datasets import --from redcode datasets/public/RedCode-Exec --out "$out/redcode.jsonl"

for ds in assebench redcode; do
  echo "== $ds" >&2
  rc=0
  "$bin" run --dataset "$out/$ds.jsonl" --policy datasets/public/policy.toml "${judges[@]}" \
    --out "$out/run-$ds" --by tag >"$out/$ds.txt" 2>"$out/$ds.log" || rc=$?
  # 0 GO, 1 NO-GO, 3 INCONCLUSIVE are results; 2 is a broken run.
  if [ "$rc" = 2 ]; then cat "$out/$ds.log" >&2; exit 2; fi
  awk -F'\t' -v ds="$ds" '$1 == "rule_id" { for (i = 1; i <= NF; i++) col[$i] = i; next }
    ("rule_id" in col) && $col["rule_id"] == "unsafe-action" && ($col["slice"] == "*" || $col["slice_value"] ~ /^label_scope/) {
      printf "%-10s %-24s judge %-10s verdict %-12s cases %5s  tp %5s fp %5s fn %5s tn %5s  precision %-6s recall %-6s baseline recall %-6s  evidence altered %s of %s\n",
        ds, ($col["slice"] == "*" ? "all" : $col["slice_value"]), $col["judge"], $col["verdict"], $col["cases"], $col["tp"], $col["fp"], $col["fn"], $col["tn"],
        substr($col["precision"], 1, 6), substr($col["recall"], 1, 6), substr($col["baseline_recall"], 1, 6), $col["evidence_altered"], $col["judged"] }' "$out/$ds.txt"
done
echo "reports: $out/run-assebench, $out/run-redcode (ASSEBench's labels are trajectory-level: see the label_scope=trajectory slice)" >&2

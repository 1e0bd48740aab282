#!/usr/bin/env bash
# The steps of the apeval GitHub Action (action.yml at the repository root
# calls this script once per step: install, prepare, run, publish, finish).
# Every input arrives as an APEVAL_* environment variable set in action.yml;
# step results go to $GITHUB_OUTPUT, later steps get them back through
# action.yml's env. It talks to the GitHub REST API at $GITHUB_API_URL with
# $APEVAL_TOKEN (the job's token) through curl and jq, both on GitHub's
# runners. docs/examples/action_test.go runs these steps with a fake
# GITHUB_* environment against a loopback stand-in for the REST API.
set -euo pipefail

step=${1:?usage: gh-action.sh install|prepare|run|publish|finish}
api=${GITHUB_API_URL:-https://api.github.com}
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/apeval

out() { printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; }
note() { echo "apeval-action: $*"; }

# gh METHOD PATH [curl args...]: one REST call with the job's token; the
# response body on stdout, failing on HTTP errors.
gh() {
  local method=$1 path=$2
  shift 2
  curl -fsSL -X "$method" \
    -H "Authorization: Bearer ${APEVAL_TOKEN:-}" \
    -H "Accept: application/vnd.github+json" \
    -H "X-GitHub-Api-Version: 2022-11-28" \
    "$@" "$api$path"
}

# input_lines, input_words: how the multi-line inputs are read (judges one
# per line as typed; dataset and args as a shell splits words, quotes
# honoured, nothing expanded or globbed).
# shellcheck source=.ci/action-inputs.sh
. "$(dirname "${BASH_SOURCE[0]}")/action-inputs.sh"

sha() { sha256sum | cut -c1-16; }

install() {
  # The action's own ref: apeval/apeval@v1 installs cmd/apeval@v1. A local
  # action (uses: ./) has no ref and installs the checked-out copy.
  local version=${APEVAL_VERSION:-${APEVAL_ACTION_REF:-}}
  if [ -n "$version" ]; then
    note "go install github.com/apeval/apeval/cmd/apeval@$version"
    if ! go install "github.com/apeval/apeval/cmd/apeval@$version"; then
      # An explicit version that cannot be installed is the caller's to fix.
      [ -z "${APEVAL_VERSION:-}" ] || exit 1
      # github.action_ref is not promised in a composite action's steps
      # (actions/runner#2473): the ref may be empty or another action's.
      # The action's own copy is at its path, whatever the ref.
      echo "::warning title=apeval::could not go install apeval@$version (the action's ref as the runner gave it); building the action's own copy instead (pin the version input to silence this)"
      (cd "$GITHUB_ACTION_PATH" && go install ./cmd/apeval)
    fi
  else
    note "go install ./cmd/apeval (from $GITHUB_ACTION_PATH)"
    (cd "$GITHUB_ACTION_PATH" && go install ./cmd/apeval)
  fi
  local bin
  bin=$(go env GOBIN)
  [ -n "$bin" ] || bin=$(go env GOPATH)/bin
  echo "$bin" >>"$GITHUB_PATH"
  out bin "$bin/apeval"
}

prepare() {
  mkdir -p "$tmp"
  # The answer cache is keyed by what decides a judge's answers (the judge
  # specs and the project file with its options, prices and prompt) and by
  # the dataset: a new dataset restores the same judge's older answers (the
  # cache is keyed by each input's hash inside, so they are never wrong).
  local judge data prefix
  judge=$({
    printf '%s\n' "${APEVAL_JUDGES:-}"
    [ -z "${APEVAL_CONFIG:-}" ] || cat "$APEVAL_CONFIG"
    [ -z "${APEVAL_POLICY:-}" ] || cat "$APEVAL_POLICY"
  } | sha)
  input_words "${APEVAL_DATASET:-}" || input_lines "${APEVAL_DATASET:-}" # the run step reports a bad input
  local -a datasets=("${APEVAL_ITEMS[@]}")
  data=$({
    local f
    for f in "${datasets[@]}"; do
      if [ -f "$f" ]; then cat "$f"; else printf '%s\n' "$f"; fi
    done
  } | sha)
  prefix=${APEVAL_CACHE_KEY:-apeval}
  # Made here: a run of recorded judges writes no cache, and actions/cache/save
  # warns on every such run when its path does not exist.
  mkdir -p "$tmp/cache"
  out cache-dir "$tmp/cache"
  out cache-key "$prefix-$judge-$data-${GITHUB_RUN_ID:-0}"
  {
    echo "restore-keys<<APEVAL_EOF"
    echo "$prefix-$judge-$data-"
    echo "$prefix-$judge-"
    echo "APEVAL_EOF"
  } >>"$GITHUB_OUTPUT"

  # The baseline: a run directory, or the newest artifact of that name
  # uploaded on the target branch.
  local b=${APEVAL_BASELINE:-}
  if [ -z "$b" ]; then
    out baseline-dir ""
  elif [ -d "$b" ]; then
    out baseline-dir "$b"
  else
    local branch list url
    branch=${GITHUB_BASE_REF:-}
    [ -n "$branch" ] || branch=$(jq -r '.repository.default_branch // empty' "$GITHUB_EVENT_PATH")
    # Only this repository's own runs on the branch: a fork's branch may be
    # called main too (its artifacts list here with the fork's
    # head_repository_id), and a run of the branch itself, not of a pull
    # request (the run's event: push, schedule or workflow_dispatch).
    # Newest first, 100 a page: a busy repository's pull-request runs can
    # fill the first page, so up to 5 pages are read.
    local repo_id cands c run_id wrun event page
    repo_id=$(jq -r '.repository.id // empty' "$GITHUB_EVENT_PATH")
    url="" c=""
    for page in 1 2 3 4 5; do
      if ! list=$(gh GET "/repos/$GITHUB_REPOSITORY/actions/artifacts?name=$b&per_page=100&page=$page"); then
        [ "$page" -gt 1 ] && break
        echo "::warning title=apeval::could not list the artifacts named $b: no baseline"
        out baseline-dir ""
        return
      fi
      cands=$(jq -c --arg b "$branch" --arg r "$repo_id" '[.artifacts[] | select((.expired | not)
          and .workflow_run.head_branch == $b
          and .workflow_run.head_repository_id != null
          and .workflow_run.head_repository_id == .workflow_run.repository_id
          and ($r == "" or (.workflow_run.repository_id | tostring) == $r))]
        | sort_by(.created_at) | reverse | .[:10][]' <<<"$list")
      while IFS= read -r c; do
        [ -n "$c" ] || continue
        run_id=$(jq -r '.workflow_run.id' <<<"$c")
        wrun=$(gh GET "/repos/$GITHUB_REPOSITORY/actions/runs/$run_id") || continue
        event=$(jq -r '.event // empty' <<<"$wrun")
        case $event in
        push | schedule | workflow_dispatch) ;;
        *) continue ;;
        esac
        url=$(jq -r '.archive_download_url' <<<"$c")
        break
      done <<<"$cands"
      [ -z "$url" ] || break
      [ "$(jq '.artifacts | length' <<<"$list")" -ge 100 ] || break
    done
    if [ -z "$url" ]; then
      echo "::warning title=apeval::no artifact $b from a push to $branch of this repository: no baseline to compare with"
      out baseline-dir ""
      return
    fi
    rm -rf "$tmp/baseline" && mkdir -p "$tmp/baseline"
    gh GET "${url#"$api"}" -o "$tmp/baseline.zip"
    unzip -q -o "$tmp/baseline.zip" -d "$tmp/baseline"
    local sha link
    sha=$(jq -r '.head_sha // empty' <<<"$wrun")
    link=$(jq -r '.html_url // empty' <<<"$wrun")
    note "baseline: artifact $b of run $run_id ($event to $branch, commit ${sha:0:7})"
    out baseline-dir "$tmp/baseline"
    out baseline-note "Baseline: artifact \`$b\` of [run $run_id]($link) ($event to \`$branch\`, commit \`${sha:0:7}\`)."
  fi
}

# pair_judges BASE HEAD: the --baseline/--candidate flags (one per line)
# that name the judge of each run to compare when a run holds several: its
# one judge that is not the run's own --baseline. Nothing for a run of one
# judge (compare and diff take it) or of several candidates (their error
# names the choice).
pair_judges() {
  local flag side j
  for side in "baseline:$1" "candidate:$2"; do
    flag=${side%%:*}
    j=$(jq -r 'if (.judges | length) > 1 then [.judges[] | select(.is_baseline | not) | .judge]
      | if length == 1 then .[0] else empty end else empty end' "${side#*:}/summary.json" 2>/dev/null) || j=""
    [ -z "$j" ] || printf -- '--%s\n%s\n' "$flag" "$j"
  done
}

run() {
  local dir=${APEVAL_OUT:-$tmp/run}
  # The job's log is no terminal: ask for the table (TSV otherwise), which a
  # reader of the log can read; args may still choose another format.
  local -a args=(run --out "$dir" --quiet --no-color --format table --cache "$APEVAL_CACHE_DIR")
  local w
  rm -rf "$dir" "$tmp/comment.md" "$tmp/diff"
  # Inputs that cannot be read (an unmatched quote) stop here: ERROR.
  local -a datasets=() judges=() extra=()
  if ! { input_words "${APEVAL_DATASET:-}" && datasets=("${APEVAL_ITEMS[@]}") &&
    input_lines "${APEVAL_JUDGES:-}" && judges=("${APEVAL_ITEMS[@]}") &&
    input_words "${APEVAL_ARGS:-}" && extra=("${APEVAL_ITEMS[@]}"); } 2>"$tmp/stderr.log"; then
    cat "$tmp/stderr.log" >&2
    out run-dir "$dir"
    out exit-code 2
    out verdict ERROR
    return 0
  fi
  [ -z "${APEVAL_CONFIG:-}" ] || args+=(--config "$APEVAL_CONFIG")
  for w in "${datasets[@]}"; do args+=(--dataset "$w"); done
  [ -z "${APEVAL_POLICY:-}" ] || args+=(--policy "$APEVAL_POLICY")
  for w in "${judges[@]}"; do args+=(--judge "$w"); done
  [ -z "${APEVAL_LABELS:-}" ] || args+=(--labels "$APEVAL_LABELS")
  # The smoke subset of a pull request: N sessions drawn with seed S.
  [ -z "${APEVAL_SAMPLE:-}" ] || args+=(--sample "$APEVAL_SAMPLE" --seed "${APEVAL_SEED:-1}")
  args+=("${extra[@]}")
  note "apeval ${args[*]}"
  local rc=0
  apeval "${args[@]}" 2>"$tmp/stderr.log" || rc=$?
  cat "$tmp/stderr.log" >&2
  out run-dir "$dir"
  out diff-dir "$tmp/diff" # written below when there is a baseline
  out exit-code "$rc"
  [ ! -f "$dir/report.html" ] || out report "$dir/report.html"

  # The verdict: the comparison's with a baseline (its comment says it),
  # else the run's; ERROR when apeval could not evaluate (exit 2) or most of
  # a judge's calls failed.
  local verdict=ERROR
  if [ -f "$dir/summary.json" ] && [ "$rc" -ne 2 ]; then
    verdict=$(jq -r 'if any(.judge_failures[]?; .broken) then "ERROR" else .verdict end' "$dir/summary.json")
  fi
  if [ -n "${APEVAL_BASELINE_DIR:-}" ] && [ -f "$dir/summary.json" ]; then
    # Which judge of each run: a run of a project file with a baseline judge
    # and one candidate (what apeval init writes) holds two; the base run's
    # candidate is compared with the head run's.
    local -a pick=()
    mapfile -t pick < <(pair_judges "$APEVAL_BASELINE_DIR" "$dir")
    # What changes, call by call: diff.html and diff.parquet, uploaded as
    # their own artifact and linked from the comment.
    apeval diff --no-color "${pick[@]}" --out "$tmp/diff" "$APEVAL_BASELINE_DIR" "$dir" >"$tmp/diff.txt" ||
      echo "::warning title=apeval::apeval diff with the baseline failed; no diff.html"
    local crc=0
    local -a cargs=(compare --comment --no-color --report-url "__APEVAL_REPORT_URL__" --diff-url "__APEVAL_DIFF_URL__")
    [ -z "${APEVAL_CONFIG:-}" ] || cargs+=(--config "$APEVAL_CONFIG")
    # The run's figures rest on the labels input: so must the comment's,
    # whose verdict becomes the job's (a run directory does not keep them).
    [ -z "${APEVAL_LABELS:-}" ] || cargs+=(--labels "$APEVAL_LABELS")
    cargs+=("${pick[@]}")
    apeval "${cargs[@]}" "$APEVAL_BASELINE_DIR" "$dir" >"$tmp/comment.md" || crc=$?
    if [ "$crc" -eq 2 ]; then
      echo "::warning title=apeval::apeval compare with the baseline failed (exit 2); the comment shows the run alone"
      rm -f "$tmp/comment.md"
    else
      # The verdict heading: line 2, or later after a partial-overlap banner.
      verdict=$(sed -n '/^## .* apeval: /{s/^## .* apeval: //p;q;}' "$tmp/comment.md")
      rc=$crc
      out exit-code "$rc"
    fi
  fi
  out verdict "$verdict"
}

publish() {
  local dir=$APEVAL_RUN_DIR
  if [ ! -f "$dir/summary.md" ]; then
    # apeval stopped before it could evaluate: say why, in both places.
    mkdir -p "$dir"
    {
      echo "## 🛑 apeval: ERROR"
      echo
      echo "apeval could not evaluate (exit ${APEVAL_EXIT_CODE:-?}); its last words:"
      echo
      echo '```text'
      tail -n 20 "$tmp/stderr.log" 2>/dev/null | cut -c1-500
      echo '```'
    } >"$dir/summary.md"
  fi
  # GitHub drops a step summary above 1 MiB (with an error annotation): a
  # long one (many rules and judges) is cut at a line, and says where the
  # rest is.
  local limit=1000000
  if [ "$(wc -c <"$dir/summary.md")" -le "$limit" ]; then
    cat "$dir/summary.md" >>"$GITHUB_STEP_SUMMARY"
  else
    {
      head -c "$limit" "$dir/summary.md" | sed '$d'
      printf '\n*… cut to fit GitHub'"'"'s 1 MiB step summary: the whole summary.md is in the run directory'"'"'s artifact.*\n'
    } >>"$GITHUB_STEP_SUMMARY"
  fi
  [ "${APEVAL_COMMENT:-true}" = true ] || return 0
  local pr
  pr=$(jq -r '.pull_request.number // empty' "$GITHUB_EVENT_PATH")
  if [ -z "$pr" ]; then
    note "not a pull request: no comment"
    return 0
  fi
  local body=$tmp/comment-body.md marker=""
  marker="<!-- apeval:${APEVAL_CONFIG:-apeval.toml} -->"
  if [ -f "$tmp/comment.md" ]; then
    local text url=${APEVAL_REPORT_URL:-${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/${GITHUB_RUN_ID:-0}}
    text=$(<"$tmp/comment.md")
    text=${text//__APEVAL_REPORT_URL__/"$url"}
    printf '%s\n' "${text//__APEVAL_DIFF_URL__/"${APEVAL_DIFF_URL:-$url}"}" >"$body"
    # Which run the baseline came from.
    [ -z "${APEVAL_BASELINE_NOTE:-}" ] || printf '\n%s\n' "$APEVAL_BASELINE_NOTE" >>"$body"
    marker=$(head -n 1 "$body")
  else
    # No baseline: the run's own summary under the marker, cut to fit.
    {
      echo "$marker"
      head -c 64000 "$dir/summary.md"
      [ -z "${APEVAL_REPORT_URL:-}" ] || printf '\n📄 **[report.html](%s)**: the full report (the run directory'"'"'s artifact).\n' "$APEVAL_REPORT_URL"
    } >"$body"
  fi
  # One comment per pull request and project file: find ours by its marker,
  # among the comments this token's own user wrote (a comment anybody else
  # starts with the marker is left alone). The job's token cannot read
  # /user; its comments are github-actions[bot]'s.
  local me
  me=$(gh GET /user 2>/dev/null | jq -r '.login // empty') || me=""
  [ -n "$me" ] || me=${APEVAL_COMMENT_USER:-github-actions[bot]}
  local page=1 id="" resp
  while :; do
    if ! resp=$(gh GET "/repos/$GITHUB_REPOSITORY/issues/$pr/comments?per_page=100&page=$page"); then
      echo "::warning title=apeval::could not list the pull request's comments: no comment posted"
      return 0
    fi
    id=$(jq -r --arg m "$marker" --arg me "$me" '[.[] | select(.user.login == $me and (.body | startswith($m + "\n")))] | first | .id // empty' <<<"$resp")
    if [ -n "$id" ] || [ "$(jq length <<<"$resp")" -lt 100 ]; then
      break
    fi
    page=$((page + 1))
  done
  local json=$tmp/comment.json
  jq -Rs '{body: .}' "$body" >"$json"
  if [ -n "$id" ]; then
    gh PATCH "/repos/$GITHUB_REPOSITORY/issues/comments/$id" --data-binary "@$json" >/dev/null ||
      echo "::warning title=apeval::could not update comment $id (a fork's read-only token?)"
    note "updated comment $id on #$pr"
  else
    gh POST "/repos/$GITHUB_REPOSITORY/issues/$pr/comments" --data-binary "@$json" >/dev/null ||
      echo "::warning title=apeval::could not comment on #$pr (a fork's read-only token?)"
    note "commented on #$pr"
  fi
}

finish() {
  local verdict=${APEVAL_VERDICT:-ERROR} rc=${APEVAL_EXIT_CODE:-2} mapped
  case "$verdict" in
  GO) mapped=0 ;;
  NO-GO) mapped=1 ;;
  INCONCLUSIVE)
    case "${APEVAL_INCONCLUSIVE:-fail}" in
    pass) mapped=0 ;;
    neutral)
      mapped=0
      echo "::warning title=apeval::INCONCLUSIVE: the data cannot decide yet (inconclusive: neutral)"
      ;;
    *) mapped=1 ;;
    esac
    ;;
  *)
    # ERROR: apeval's own exit code when it failed, else 1.
    mapped=$rc
    [ "$mapped" -ne 0 ] && [ "$mapped" -ne 3 ] || mapped=1
    ;;
  esac
  out exit-code "$mapped"
  note "verdict $verdict (apeval exit $rc): the step exits $mapped"
  exit "$mapped"
}

case "$step" in
install | prepare | run | publish | finish) "$step" ;;
*)
  echo "gh-action.sh: unknown step $step" >&2
  exit 2
  ;;
esac

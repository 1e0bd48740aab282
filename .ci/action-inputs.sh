#!/usr/bin/env bash
# How the apeval GitHub Action reads its multi-line inputs (sourced by
# gh-action.sh; docs/examples/action_test.go tests and fuzzes it through
# its command line: `action-inputs.sh lines|words`, the input on stdin,
# one item per NUL-terminated record on stdout).
#
#   input_lines TEXT  one item per non-blank line, trimmed, taken as typed
#                     (judges: "exec:python3 judge.py --model small" is one
#                     judge; its spaces and quotes are the command's)
#   input_words TEXT  words as a shell splits them, quotes and backslashes
#                     honoured ("my cases.jsonl", 'a b', a\ b), and nothing
#                     else: no glob ('*.jsonl' stays '*.jsonl'), no $VAR, no
#                     $(command) (dataset, args). An unmatched quote is an
#                     error (exit 2).
# Both leave the items in the array APEVAL_ITEMS.

input_lines() {
  APEVAL_ITEMS=()
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    # trim leading and trailing blanks
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    [ -z "$line" ] || APEVAL_ITEMS+=("$line")
  done <<<"${1:-}"
}

input_words() {
  APEVAL_ITEMS=()
  # xargs splits like a shell (quotes, backslashes) and expands nothing.
  local f err
  f=$(mktemp) || return 2
  if ! err=$(printf '%s\n' "${1:-}" | xargs -r printf '%s\0' 2>&1 >"$f"); then
    rm -f "$f"
    echo "apeval-action: cannot split into words (${err#xargs: }): ${1:-}" >&2
    return 2
  fi
  mapfile -d '' -t APEVAL_ITEMS <"$f"
  rm -f "$f"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case ${1:-} in
  lines) input_lines "$(cat)" ;;
  words) input_words "$(cat)" ;;
  *)
    echo "usage: action-inputs.sh lines|words <TEXT" >&2
    exit 2
    ;;
  esac
  for item in "${APEVAL_ITEMS[@]}"; do printf '%s\0' "$item"; done
fi

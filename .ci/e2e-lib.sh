# Sourced by the end-to-end scripts (.ci/e2e-s3.sh, .ci/e2e-cloud.sh), after
# they define log and start=$SECONDS.
#
# e2e_world NAME makes $work, a temporary directory for a server and its
# runs, and arranges that at exit the server whose pid is in $server_pid is
# stopped, its log ($work/serve.log) shown when the script failed, and $work
# removed (kept with APEVAL_E2E_KEEP=1).

e2e_world() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/apeval-e2e-$1.XXXXXX")
  server_pid=""
  trap e2e_cleanup EXIT
  trap 'exit 130' INT TERM
}

stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
  fi
  [ -z "$server_pid" ] || wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

e2e_cleanup() {
  rc=$?
  stop_server
  if [ "$rc" -ne 0 ] && [ -f "$work/serve.log" ]; then
    log "server log (last 40 lines):"
    tail -n 40 "$work/serve.log" >&2 || true
  fi
  if [ "${APEVAL_E2E_KEEP:-}" = 1 ]; then
    log "kept $work"
  else
    rm -rf "$work"
  fi
  log "finished in $((SECONDS - start))s (exit $rc)"
  exit "$rc"
}

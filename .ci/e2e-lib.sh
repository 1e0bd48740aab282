# Sourced by the end-to-end scripts (.ci/e2e-ollama.sh, .ci/e2e-s3.sh,
# .ci/e2e-cloud.sh), after they define log, root (the repository) and
# start=$SECONDS.
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
    pkill -TERM -P "$server_pid" 2>/dev/null || true # its children (ollama's model runners)
    kill "$server_pid" 2>/dev/null || true
  fi
  [ -z "$server_pid" ] || wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# await_server CHECK...: waits up to 15 s, while the server in $server_pid
# lives, for the command CHECK to succeed.
await_server() {
  for _ in $(seq 1 150); do
    kill -0 "$server_pid" 2>/dev/null || return 1
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

# start_server NAME picks a free loopback port into $port and calls the
# script's serve, which starts the server there, sets $server_pid and
# returns await_server's answer. The port is chosen before the server binds
# it, so another process may win the race: five ports are tried.
start_server() {
  for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    port_free "$port" || continue
    if serve; then return 0; fi
    stop_server
    log "server did not start on port $port (attempt $attempt)"
  done
  log "could not start $1"
  exit 1
}

# ok runs the apeval built into $work (its stderr to a file in $work, which
# e2e-cloud's secret check reads); exit 0 (GO), 1 (NO-GO) and 3
# (INCONCLUSIVE) are verdicts, anything else fails (the script's fail).
ok() {
  local rc=0 err
  err=$(mktemp "$work/apeval-err.XXXXXX")
  "$work/apeval" "$@" 2>"$err" || rc=$?
  case $rc in 0 | 1 | 3) return 0 ;; esac
  cat "$err" >&2
  fail "apeval $* exited $rc"
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

# same WHAT FILE1 FILE2: the merged run's output equals the single run's.
same() {
  cmp -s "$2" "$3" || { { diff "$2" "$3" || true; } | head -n 6 | cut -c 1-300 >&2; fail "$1 differ between the merged and the single run"; }
  [ -s "$2" ] || fail "$1: empty output"
  log "$1: identical ($(wc -l <"$2") lines)"
}

# Decision rows through DuckDB, sorted, without the run's id and start time
# (each run has its own).
duck() {
  (cd "$root/.cache/node" && APEVAL_PARQUET="$1" node --input-type=module -e '
import { DuckDBInstance } from "@duckdb/node-api";
const con = await (await DuckDBInstance.create(":memory:")).connect();
const r = await con.runAndReadAll(`SELECT * EXCLUDE (run_id, run_started) FROM read_parquet(${JSON.stringify(process.env.APEVAL_PARQUET)}) ORDER BY ALL`);
for (const row of r.getRowsJson()) console.log(JSON.stringify(row));
')
}

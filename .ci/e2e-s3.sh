#!/usr/bin/env bash
# `make e2e-s3`: object storage end to end against a REAL S3 server. Builds
# versitygw (an S3 gateway over a local directory) offline from its module
# (cached by versitygw and Go version), serves a temporary directory on a
# free loopback port with throwaway credentials, and checks:
#   1. a 4-shard run of the embedded sample, each shard uploading to
#      s3://apeval-e2e/runs/x/shard-I, merged from the bucket, gives the
#      same metrics (report and gate tables) and the same decision rows
#      (DuckDB, sorted, run_id aside) as one run on one machine;
#   2. merge --out s3://… and gate/report of that prefix agree with local;
#   3. a server SIGKILLed in the middle of an upload (through apeval's own
#      upload code) leaves no object under that key after a restart.
#
# Environment: APEVAL_E2E_CACHE (default .cache) holds the server build;
# APEVAL_E2E_KEEP=1 keeps the temporary dir (server log, bucket) for debugging.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

log() { printf 'e2e-s3: %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }
start=$SECONDS

# --- The server, built once per versitygw and Go version ---
vgw_version=v1.8.0
go_version=$(go env GOVERSION)
cache="${APEVAL_E2E_CACHE:-$root/.cache}/versitygw-$vgw_version-$go_version"
mkdir -p "$cache" && cache=$(cd "$cache" && pwd) # the build runs elsewhere
vgw="$cache/versitygw"
if [ ! -x "$vgw" ]; then
  log "building versitygw $vgw_version with $go_version (about 2 to 4 minutes on 2 cores, once)"
  # versitygw's own go.mod decides its dependencies: it is built in a
  # throwaway module; this repository's go.mod and go.sum stay untouched.
  rm -rf "$cache/mod" && mkdir -p "$cache/mod"
  cd "$cache/mod"
  go mod init apeval-e2e/versitygw-build
  go get "github.com/versity/versitygw/cmd/versitygw@$vgw_version" 2>get.log || { cat get.log >&2; exit 1; }
  t0=$SECONDS
  nice -n 10 go build -ldflags "-s -w" -o "$vgw.tmp" github.com/versity/versitygw/cmd/versitygw
  mv "$vgw.tmp" "$vgw"
  cd "$root"
  log "built in $((SECONDS - t0))s"
fi

# --- A temporary world for the server and the runs ---
# shellcheck source=e2e-lib.sh
. "$root/.ci/e2e-lib.sh"
e2e_world s3

mkdir -p "$work/data" "$work/meta"
# Throwaway credentials, for this server only. The SDK reads them from its
# default chain (the environment); no profile or instance metadata is tried.
access="e2e$RANDOM$RANDOM"
secret="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export AWS_ACCESS_KEY_ID="$access" AWS_SECRET_ACCESS_KEY="$secret" AWS_REGION=us-east-1
export AWS_CONFIG_FILE="$work/no-aws-config" AWS_SHARED_CREDENTIALS_FILE="$work/no-aws-credentials"
export AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 || true

# serve starts versitygw on $port over $work/data; metadata goes to a
# sidecar directory, so the file system needs no extended attributes.
serve() {
  ROOT_ACCESS_KEY="$access" ROOT_SECRET_KEY="$secret" \
    "$vgw" --port "127.0.0.1:$port" --region us-east-1 \
    posix --sidecar "$work/meta" "$work/data" >>"$work/serve.log" 2>&1 &
  server_pid=$!
  await_server curl -s -o /dev/null "http://127.0.0.1:$port/"
}
start_server versitygw
log "versitygw $vgw_version serving $work/data on 127.0.0.1:$port"

# s3 signs a raw S3 request with the throwaway credentials.
# Only body-less requests here (SHA-256 of the empty payload).
s3() {
  curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$@"
}
bucket=apeval-e2e
s3 -X PUT "http://127.0.0.1:$port/$bucket" >/dev/null || fail "could not create bucket $bucket"
# keys lists the keys below a prefix (ListObjectsV2), one a line.
keys() {
  s3 "http://127.0.0.1:$port/$bucket?list-type=2&prefix=${1//\//%2F}" |
    grep -o '<Key>[^<]*</Key>' | sed 's/<Key>\(.*\)<\/Key>/\1/' || true
}
q="endpoint=http://127.0.0.1:$port&use_path_style=true&region=us-east-1"
url() { printf 's3://%s/%s?%s' "$bucket" "$1" "$q"; }
# objstore's own checks against the server (glob, streaming, atomic write
# and abort, run directory round trip), as .ci/e2e-cloud.sh runs them on
# GCS and Azure.
APEVAL_E2E_URL="$(url objstore)" go test -count=1 -tags e2e -run '^TestE2EBucket$' ./internal/objstore/ >"$work/objstore.log" 2>&1 ||
  { cat "$work/objstore.log" >&2; fail "objstore's checks failed against versitygw"; }
log "objstore's checks pass against the server"

# --- apeval, built from this checkout ---
go build -o "$work/apeval" ./cmd/apeval
apeval() { "$work/apeval" "$@"; }

# --- 1. four shards to the bucket, in parallel like four machines ---
pids=()
for i in 1 2 3 4; do
  ok run --shard "$i/4" --out "$(url runs/x/shard-$i)" -q >"$work/shard-$i.out" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a shard failed"; done
for i in 1 2 3 4; do
  keys "runs/x/shard-$i/" | grep -qx "runs/x/shard-$i/run.json" || fail "shard $i: no run.json in the bucket"
done
log "4 shards uploaded: $(keys runs/x/ | wc -l) objects"
ok run --out "$work/single" -q >/dev/null
ok merge --out "$work/merged" "$(url runs/x/shard-1)" "$(url runs/x/shard-2)" "$(url runs/x/shard-3)" "$(url runs/x/shard-4)" >/dev/null

ok report --format tsv "$work/single" >"$work/single.tsv"
ok report --format tsv "$work/merged" >"$work/merged.tsv"
same "metrics (report --format tsv)" "$work/single.tsv" "$work/merged.tsv"
ok gate "$work/single" >"$work/single.gate"
ok gate "$work/merged" >"$work/merged.gate"
same "verdicts (gate)" "$work/single.gate" "$work/merged.gate"

if [ -f "$root/.cache/node/node_modules/@duckdb/node-api/package.json" ]; then
  duck "$work/single/decisions.parquet" >"$work/single.rows"
  duck "$work/merged/decisions.parquet" >"$work/merged.rows"
  same "decision rows (DuckDB, sorted)" "$work/single.rows" "$work/merged.rows"
else
  fail "DuckDB for Node is not installed: run make duckdb"
fi

# --- 2. merge into the bucket; gate and report read the prefix ---
ok merge --out "$(url runs/x/merged)" "$(url runs/x/shard-1)" "$(url runs/x/shard-2)" "$(url runs/x/shard-3)" "$(url runs/x/shard-4)" >/dev/null
ok gate "$(url runs/x/merged)" >"$work/bucket.gate"
same "gate of the merged prefix" "$work/single.gate" "$work/bucket.gate"
ok report --format tsv --out "$work/from-bucket" "$(url runs/x/merged)" >"$work/bucket.tsv"
same "report of the merged prefix" "$work/single.tsv" "$work/bucket.tsv"
# Nothing secret reached run.json.
if grep -rl -e "$secret" -e "$access" "$work/merged" "$work/data" 2>/dev/null | grep -v '/\.sgw' | head -1 | grep -q .; then
  fail "a credential was written into a run directory"
fi

# --- 3. the server killed mid-upload leaves no object ---
APEVAL_E2E_S3_URL="$(url kill)" APEVAL_E2E_S3_PID="$server_pid" APEVAL_E2E_S3_KILL_KEY=decisions.parquet \
  go test -count=1 -tags e2e -run E2ES3 -v ./internal/objstore/ 2>&1 | tail -n 5 >&2
wait "$server_pid" 2>/dev/null || true
# The kill came in the middle: parts of the upload had reached the server.
parts=$(grep -c 'PUT | /apeval-e2e/kill/decisions.parquet .*partNumber=' "$work/serve.log" || true)
[ "$parts" -gt 0 ] || fail "no part of the killed upload reached the server: the kill came too early to test anything"
kill -0 "$server_pid" 2>/dev/null && fail "the server survived the kill"
server_pid=""
serve || fail "versitygw did not restart"
left=$(keys kill/)
[ -z "$left" ] || fail "after the kill the bucket lists: $left"
[ ! -e "$work/data/$bucket/kill/decisions.parquet" ] || fail "the backend holds a file under the killed upload's final name"
[ "$(keys runs/x/shard-1/ | grep -c .)" -gt 0 ] || fail "the earlier objects are gone after the restart"
log "killed mid-upload ($parts part(s) sent): no object under kill/ after the restart"
log "PASS"

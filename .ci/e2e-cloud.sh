#!/usr/bin/env bash
# `make e2e-gcs` / `make e2e-azure`: object storage end to end against a
# REAL Google Cloud Storage or Azure Blob Storage server, offline, like
# .ci/e2e-s3.sh does for S3:
#   gcs    fake-gcs-server (github.com/fsouza/fake-gcs-server, a Go module,
#          built once from the Go module proxy in a throwaway module);
#          apeval reaches it through STORAGE_EMULATOR_HOST (no credentials).
#   azure  Azurite (the npm package azurite, installed once with npm), with
#          a throwaway account name and key that apeval reads from
#          AZURE_STORAGE_ACCOUNT / AZURE_STORAGE_KEY, and once from
#          AZURE_STORAGE_CONNECTION_STRING; telemetry off.
# Both listen on a free loopback port and keep their data in a temporary
# directory. The script checks:
#   0. objstore's own checks (glob, streaming, atomic write and abort, run
#      directory up and down) pass against the server (TestE2EBucket);
#   1. the sample dataset, gzipped, uploaded to the bucket, read by 4 shard
#      processes in parallel through a glob (--dataset 'URL/cases/*.jsonl.gz'),
#      each writing its run to URL/runs/x/shard-I, merged from the bucket,
#      gives the same metrics (report and gate tables) and decision rows
#      (DuckDB, sorted, run_id aside) as one local run of the local file;
#   2. merge --out URL/…/merged, then gate, report and compare of that
#      prefix, agree with the local run; no credential reaches a run
#      directory, the bucket, or any message apeval printed;
#   3. a server SIGKILLed in the middle of an upload (apeval's own upload
#      code, after at least one GCS chunk or Azure block reached it) lists
#      no object under that key after a restart, while earlier objects
#      are still there.
#
# Usage: .ci/e2e-cloud.sh gcs|azure
# Environment: APEVAL_E2E_CACHE (default .cache) holds the server builds;
# APEVAL_E2E_KEEP=1 keeps the temporary dir (server log, data) for debugging.
set -euo pipefail
kind="${1:-}"
case "$kind" in gcs | azure) ;; *)
  echo "usage: $0 gcs|azure" >&2
  exit 2
  ;;
esac
cd "$(dirname "$0")/.."
root=$(pwd)
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

log() { printf 'e2e-%s: %s\n' "$kind" "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }
start=$SECONDS
cache_root="${APEVAL_E2E_CACHE:-$root/.cache}"
mkdir -p "$cache_root" && cache_root=$(cd "$cache_root" && pwd)

# --- The server, built or installed once per version ---
fgcs_version=v1.56.1 # github.com/fsouza/fake-gcs-server
azurite_version=3.35.0 # npm azurite (3.36 and later ask for Node 21+)
if [ "$kind" = gcs ]; then
  go_version=$(go env GOVERSION)
  cache="$cache_root/fake-gcs-server-$fgcs_version-$go_version"
  mkdir -p "$cache"
  server_bin="$cache/fake-gcs-server"
  if [ ! -x "$server_bin" ]; then
    log "building fake-gcs-server $fgcs_version with $go_version (about 1 minute on 2 cores, once)"
    # Its own go.mod decides its dependencies: built in a throwaway module;
    # this repository's go.mod and go.sum stay untouched.
    rm -rf "$cache/mod" && mkdir -p "$cache/mod"
    (
      cd "$cache/mod"
      go mod init apeval-e2e/fake-gcs-server-build >/dev/null 2>&1
      go get "github.com/fsouza/fake-gcs-server@$fgcs_version" 2>get.log || { cat get.log >&2; exit 1; }
      t0=$SECONDS
      nice -n 10 go build -ldflags "-s -w" -o "$server_bin.tmp" github.com/fsouza/fake-gcs-server
      mv "$server_bin.tmp" "$server_bin"
      echo "built in $((SECONDS - t0))s" >&2
    )
  fi
else
  command -v node >/dev/null && command -v npm >/dev/null || fail "node and npm are needed for Azurite (apt-get install nodejs npm)"
  cache="$cache_root/azurite-$azurite_version"
  server_bin="$cache/node_modules/.bin/azurite-blob"
  if [ ! -x "$server_bin" ]; then
    log "installing azurite $azurite_version with npm (about 20 s, once)"
    rm -rf "$cache" && mkdir -p "$cache"
    npm install --silent --no-audit --no-fund --prefix "$cache" "azurite@$azurite_version" >&2
    [ -x "$server_bin" ] || fail "npm did not install azurite-blob"
  fi
fi

# --- A temporary world for the server and the runs ---
# shellcheck source=e2e-lib.sh
. "$root/.ci/e2e-lib.sh"
e2e_world $kind
mkdir -p "$work/data"

# No cloud credential or endpoint from the calling environment is used.
unset GOOGLE_APPLICATION_CREDENTIALS STORAGE_EMULATOR_HOST STORAGE_EMULATOR_HOST_GRPC \
  AZURE_STORAGE_ACCOUNT AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN AZURE_STORAGE_CONNECTION_STRING \
  AZURE_STORAGEBLOB_CONNECTIONSTRING AZURE_STORAGE_DOMAIN AZURE_STORAGE_PROTOCOL \
  AZURE_STORAGE_IS_LOCAL_EMULATOR AZURE_STORAGE_IS_CDN || true
secret=""
if [ "$kind" = azure ]; then
  # A throwaway account: Azurite serves it instead of its well-known
  # development account, and the SDK signs every request with its key.
  account="e2e$RANDOM$RANDOM"
  secret="$(head -c 48 /dev/urandom | base64 | tr -d '\n')"
  export AZURITE_ACCOUNTS="$account:$secret"
  export AZURE_STORAGE_ACCOUNT="$account" AZURE_STORAGE_KEY="$secret"
fi

# serve starts the server on $port over $work/data.
serve() {
  if [ "$kind" = gcs ]; then
    "$server_bin" -scheme http -host 127.0.0.1 -port "$port" -backend filesystem \
      -filesystem-root "$work/data" -external-url "http://127.0.0.1:$port" \
      -public-host "127.0.0.1:$port" >>"$work/serve.log" 2>&1 &
  else
    "$server_bin" --blobHost 127.0.0.1 --blobPort "$port" --location "$work/data" \
      --disableTelemetry --skipApiVersionCheck --loose >>"$work/serve.log" 2>&1 &
  fi
  server_pid=$!
  await_server curl -s -o /dev/null "http://127.0.0.1:$port/"
}
start_server "the $kind server"

bucket=apeval-e2e
if [ "$kind" = gcs ]; then
  # gcsblob then talks plain HTTP to http://$STORAGE_EMULATOR_HOST/storage/v1/
  # without looking for credentials.
  export STORAGE_EMULATOR_HOST="127.0.0.1:$port"
  url() { printf 'gs://%s/%s' "$bucket" "$1"; }
  log "fake-gcs-server $fgcs_version serving $work/data on 127.0.0.1:$port"
else
  # A domain on 127.0.0.1 makes the SDK put the account in the path
  # (http://127.0.0.1:port/account/container), as Azurite expects.
  url() { printf 'azblob://%s/%s?protocol=http&domain=127.0.0.1:%s' "$bucket" "$1" "$port"; }
  log "azurite $azurite_version serving $work/data on 127.0.0.1:$port"
fi

# --- apeval and objstore's e2e test binary, built from this checkout ---
go build -o "$work/apeval" ./cmd/apeval
go test -c -tags e2e -o "$work/objstore.test" ./internal/objstore/
# step NAME [ENV=VALUE…]: one of objstore's e2e tests.
step() {
  local name=$1
  shift
  env "$@" "$work/objstore.test" -test.run "^$name\$" -test.count=1 >"$work/step.log" 2>&1 ||
    { cat "$work/step.log" >&2; fail "$name failed"; }
}
# keys PREFIX: the keys below PREFIX, one a line (Azure: "uncommitted KEY"
# for a blob with staged blocks that was never committed).
keys() {
  step TestE2EList APEVAL_E2E_URL="$(url "$1")" APEVAL_E2E_LIST_OUT="$work/keys"
  cat "$work/keys"
}

step TestE2ECreateBucket APEVAL_E2E_URL="$(url x)"
step TestE2EBucket APEVAL_E2E_URL="$(url objstore)"
log "objstore's checks (glob, streaming, atomic write and abort, run directory round trip) pass against the server"

# --- 1. a gzipped dataset in the bucket; four shards to the bucket ---
"$work/apeval" datasets sample --out "$work/sample" >/dev/null
gzip -c "$work/sample/cases.jsonl" >"$work/cases.jsonl.gz"
pol="$work/sample/policy.toml"
step TestE2EPut APEVAL_E2E_URL="$(url cases/part-0.jsonl.gz)" APEVAL_E2E_PUT_FILE="$work/cases.jsonl.gz"
printf 'not a dataset\n' >"$work/readme.txt"
step TestE2EPut APEVAL_E2E_URL="$(url cases/README.txt)" APEVAL_E2E_PUT_FILE="$work/readme.txt"
dataset="$(url 'cases/*.jsonl.gz')"

pids=()
for i in 1 2 3 4; do
  ok run --shard "$i/4" --dataset "$dataset" --policy "$pol" --out "$(url runs/x/shard-$i)" -q >"$work/shard-$i.out" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a shard failed"; done
keys runs/x/ >"$work/shards.keys"
for i in 1 2 3 4; do
  grep -qx "runs/x/shard-$i/run.json" "$work/shards.keys" || fail "shard $i: no run.json in the bucket"
done
log "4 shards read the dataset through a glob and uploaded: $(wc -l <"$work/shards.keys") objects"
ok run --dataset "$work/sample/cases.jsonl" --policy "$pol" --out "$work/single" -q >/dev/null
shards=("$(url runs/x/shard-1)" "$(url runs/x/shard-2)" "$(url runs/x/shard-3)" "$(url runs/x/shard-4)")
ok merge --out "$work/merged" "${shards[@]}" >/dev/null

ok report --format tsv "$work/single" >"$work/single.tsv"
ok report --format tsv "$work/merged" >"$work/merged.tsv"
same "metrics (report --format tsv)" "$work/single.tsv" "$work/merged.tsv"
ok gate "$work/single" >"$work/single.gate"
ok gate "$work/merged" >"$work/merged.gate"
same "verdicts (gate)" "$work/single.gate" "$work/merged.gate"

[ -f "$root/.cache/node/node_modules/@duckdb/node-api/package.json" ] || fail "DuckDB for Node is not installed: run make duckdb"
duck "$work/single/decisions.parquet" >"$work/single.rows"
duck "$work/merged/decisions.parquet" >"$work/merged.rows"
same "decision rows (DuckDB, sorted)" "$work/single.rows" "$work/merged.rows"

# --- 2. merge into the bucket; gate, report and compare read the prefix ---
merged="$(url runs/x/merged)"
if [ "$kind" = azure ]; then
  # This merge finds its credentials in a connection string instead.
  cs="DefaultEndpointsProtocol=http;AccountName=$account;AccountKey=$secret;BlobEndpoint=http://127.0.0.1:$port/$account;"
  merged="azblob://$bucket/runs/x/merged"
  (
    export AZURE_STORAGE_KEY="" AZURE_STORAGE_CONNECTION_STRING="$cs"
    ok merge --out "$merged" "${shards[@]}" >/dev/null
  )
  grep -q "uploaded to azblob://$bucket/runs/x/merged" "$work"/apeval-err.* || fail "no upload message for the connection-string merge"
  merged="$(url runs/x/merged)"
else
  ok merge --out "$merged" "${shards[@]}" >/dev/null
fi
ok gate "$merged" >"$work/bucket.gate"
same "gate of the merged prefix" "$work/single.gate" "$work/bucket.gate"
ok report --format tsv --out "$work/from-bucket" "$merged" >"$work/bucket.tsv"
same "report of the merged prefix" "$work/single.tsv" "$work/bucket.tsv"
ok compare --baseline recorded/ollama/qwen2.5:3b "$work/merged" >"$work/local.compare"
ok compare --baseline recorded/ollama/qwen2.5:3b "$merged" >"$work/bucket.compare"
same "compare of the merged prefix (its two judges)" "$work/local.compare" "$work/bucket.compare"
# Nothing secret reached a run directory, the bucket or a message.
if [ -n "$secret" ]; then
  if grep -rlF -e "$secret" "$work/single" "$work/merged" "$work/from-bucket" "$work/data" "$work"/apeval-err.* "$work"/shard-*.out 2>/dev/null | head -1 | grep -q .; then
    fail "the account key was written into a run directory, the bucket or a message"
  fi
  log "the account key appears in no run directory, object or message"
fi

# --- 3. the server killed mid-upload leaves no object ---
if [ "$kind" = azure ]; then sleep 6; fi # Azurite saves its metadata every 5 s
step TestE2EKillMidUpload APEVAL_E2E_URL="$(url kill)" APEVAL_E2E_PID="$server_pid" APEVAL_E2E_KILL_KEY=decisions.parquet
wait "$server_pid" 2>/dev/null || true
kill -0 "$server_pid" 2>/dev/null && fail "the server survived the kill"
# The kill came in the middle: part of the upload had reached the server.
if [ "$kind" = gcs ]; then
  parts=$(grep -c 'POST /upload/storage/v1/b/apeval-e2e/o?uploadType=resumable&name=kill%2Fdecisions.parquet&upload_id=' "$work/serve.log" || true)
else
  parts=$(grep -c 'PUT /[^ ]*/apeval-e2e/kill%2Fdecisions.parquet?[^ ]*comp=block' "$work/serve.log" || true)
fi
[ "$parts" -gt 0 ] || fail "no part of the killed upload reached the server: the kill came too early to test anything"
server_pid=""
serve || fail "the server did not restart"
left=$(keys kill/)
uncommitted=$(printf '%s\n' "$left" | grep -c '^uncommitted ' || true)
committed=$(printf '%s\n' "$left" | grep -v '^uncommitted ' | grep . || true)
[ -z "$committed" ] || fail "after the kill the bucket lists: $committed"
find "$work/data" -name 'decisions.parquet' -path '*kill*' | grep -q . && fail "the backend holds a file under the killed upload's final name"
[ "$(keys runs/x/shard-1/ | grep -c .)" -gt 0 ] || fail "the earlier objects are gone after the restart"
note=""
[ "$uncommitted" -eq 0 ] || note=" ($uncommitted uncommitted blob(s) with staged blocks only: not objects, never listed or read)"
log "killed mid-upload ($parts chunk(s)/block(s) sent): no object under kill/ after the restart$note"
log "PASS"

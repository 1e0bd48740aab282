#!/usr/bin/env bash
# `make e2e-ollama`: end-to-end tests of the Ollama judge path against a
# REAL `ollama serve`. Builds the server offline from the Ollama module
# version go.mod pins (cached by Ollama and Go version), generates a tiny
# model, serves it on a free loopback port with temporary dirs, runs the
# `e2e`-tagged tests, and always stops the server.
#
# Environment: APEVAL_E2E_CACHE (default .cache) holds the server build;
# APEVAL_E2E_KEEP=1 keeps the temporary dir (server log, model) for debugging.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

log() { printf 'e2e-ollama: %s\n' "$*" >&2; }
start=$SECONDS

# --- Debian packages: headers that Go module zips leave out of llama.cpp ---
packages=(nlohmann-json3-dev libstb-dev)
command -v g++ >/dev/null || packages+=(g++)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- The server, built once per Ollama and Go version ---
ollama_version=$(go list -m -f '{{.Version}}' github.com/ollama/ollama)
go_version=$(go env GOVERSION)
cache="${APEVAL_E2E_CACHE:-$root/.cache}/ollama-$ollama_version-$go_version"
mkdir -p "$cache" && cache=$(cd "$cache" && pwd) # the build runs elsewhere
bin="$cache/ollama"
if [ ! -x "$bin" ]; then
  log "building ollama $ollama_version with $go_version (3 to 6 minutes on 2 cores, once)"
  # Ollama's own go.mod decides its dependencies (it needs tablewriter
  # v0.0.5, this module v1), so it is built in a throwaway module that
  # requires exactly the version this module pins; this repository's go.mod
  # and go.sum stay untouched.
  rm -rf "$cache/mod" && mkdir -p "$cache/mod" "$cache/include/miniaudio"
  cd "$cache/mod"
  go mod init apeval-e2e/ollama-build 2>/dev/null
  go get "github.com/ollama/ollama@$ollama_version" 2>get.log || { cat get.log >&2; exit 1; }
  # miniaudio.h is vendored in llama.cpp, but module zips drop vendor/;
  # malgo ships the same header.
  malgo=$(go mod download -json github.com/gen2brain/malgo@v0.11.24 |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -f "$malgo/miniaudio.h" ] || { log "miniaudio.h not found in malgo ($malgo)"; exit 1; }
  install -m 0644 "$malgo/miniaudio.h" "$cache/include/miniaudio/miniaudio.h"
  t0=$SECONDS
  nice -n 10 env CGO_ENABLED=1 CGO_CPPFLAGS="-I$cache/include" go build \
    -ldflags "-s -w -X github.com/ollama/ollama/version.Version=${ollama_version#v}" \
    -o "$bin.tmp" github.com/ollama/ollama
  mv "$bin.tmp" "$bin"
  cd "$root"
  log "built in $((SECONDS - t0))s"
fi

# --- A temporary world for the server ---
# shellcheck source=e2e-lib.sh
. "$root/.ci/e2e-lib.sh"
e2e_world ollama

mkdir -p "$work/home" "$work/models"
unset OLLAMA_HOST OLLAMA_ORIGINS
# Only the server and its client get the temporary HOME: go itself keeps
# its caches.
ollama() { HOME="$work/home" OLLAMA_MODELS="$work/models" OLLAMA_HOST="127.0.0.1:$port" "$bin" "$@"; }
go run ./judge/internal/tinymodel/gen -o "$work/tiny.gguf" -seed 1

serve() {
  ollama serve >>"$work/serve.log" 2>&1 &
  server_pid=$!
  await_server ollama list
}
start_server "ollama serve"
log "ollama $(ollama --version 2>/dev/null | sed -n 's/.*version is //p') serving on 127.0.0.1:$port"

# One thread: on a busy CI machine ggml's spinning worker threads fight the
# compilers for the cores, and a call slows from 0.2 s to 10 s.
cat >"$work/Modelfile" <<'EOF'
FROM ./tiny.gguf
TEMPLATE """{{- range .Messages }}{{ .Role }}: {{ .Content }}
{{ end }}assistant: """
PARAMETER num_ctx 512
PARAMETER num_thread 1
EOF
(cd "$work" && ollama create tiny -f Modelfile >create.log 2>&1) || { cat "$work/create.log" >&2; exit 1; }

export APEVAL_E2E_OLLAMA_HOST="http://127.0.0.1:$port"
export APEVAL_E2E_OLLAMA_BIN="$bin"
# A test that stops a server starts its own on these models.
export APEVAL_E2E_OLLAMA_MODELS="$work/models"

pkgs=(./judge/ollama/)
[ -d cmd/apeval ] && pkgs+=(./cmd/apeval/)
# -p 1: the packages take turns on the one server, so neither's latency
# checks measure the other's load.
go test -count=1 -p 1 -timeout 6m -tags e2e -run E2E -v "${pkgs[@]}"

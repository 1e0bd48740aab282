# Sourced by the scripts that open pages in headless Chromium
# (.ci/html-check.sh, .ci/comment-check.sh, .ci/label-browser.sh): the
# installs they share, each idempotent and named after its caller.
#
# ensure_chromium NAME: Debian's chromium at $CHROMIUM (default
# /usr/bin/chromium), installed with apt-get when missing.
# ensure_playwright NAME DIR VERSION: playwright-core VERSION in DIR (a
# git-ignored node prefix), without a browser download of its own.

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

ensure_chromium() {
  [ -x "$CHROMIUM" ] && return 0
  echo "$1: installing Debian's chromium"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  [ -x "$CHROMIUM" ] || { echo "$1: FAIL: chromium is not at $CHROMIUM after apt-get install"; exit 1; }
}

ensure_playwright() {
  local pkg="$2/node_modules/playwright-core/package.json"
  [ -f "$pkg" ] && grep -q "\"version\": \"$3\"" "$pkg" && return 0
  command -v npm >/dev/null || { echo "$1: FAIL: npm is needed (apt-get install nodejs npm)"; exit 1; }
  echo "$1: installing playwright-core@$3 into ${2#"$repo"/}"
  mkdir -p "$2"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit --no-fund \
    --prefix "$2" "playwright-core@$3"
}

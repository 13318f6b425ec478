#!/usr/bin/env bash
# End-to-end test of the league pages in a real headless Chromium, driven by Playwright:
# enters games through the form and checks the leaderboard. Installs what it needs
# (Debian's chromium, nodejs and npm via apt-get when missing, as root; playwright-core
# via npm into tests/e2e/node_modules), builds podium, starts `podium serve` on a free port
# with a scratch database, runs the test, stops the server.
# Usage: bash scripts/e2e.sh   (E2E_SCREENSHOTS=DIR keeps screenshots; E2E_DOCS_IMG=docs/img
# then takes the screenshots of docs/server.md)
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "e2e: missing ${missing[*]}; install them as root (sudo apt-get install ${missing[*]}) and run again" >&2
    exit 1
  fi
  echo "e2e: installing ${missing[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -d tests/e2e/node_modules/playwright-core ]; then
  echo "e2e: installing playwright-core" >&2
  (cd tests/e2e && npm install --no-audit --no-fund --loglevel=error)
fi
cargo build -q -p podium-cli
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
tmp=$(mktemp -d)
"$target_dir/debug/podium" serve --db "$tmp/e2e.db" --addr 127.0.0.1:0 >"$tmp/out" 2>"$tmp/log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 200); do
  grep -q '^listening on ' "$tmp/out" && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/log" >&2; exit 1; }
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$tmp/out")
[ -n "$url" ] || { echo "e2e: the server did not start" >&2; cat "$tmp/log" >&2; exit 1; }
# The screenshots first, while the scratch server holds their leagues only.
if [ -n "${E2E_DOCS_IMG:-}" ]; then PODIUM_URL="$url" node tests/e2e/screenshots.mjs "$E2E_DOCS_IMG"; fi
PODIUM_URL="$url" node --test tests/e2e/

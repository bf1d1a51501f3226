#!/usr/bin/env bash
# Runs the GUI end-to-end scenarios (gui.md §9): installs playwright-core + axe-core from the
# lockfile, Debian's chromium when missing, then `node --test` over gui/e2e/ against a ta
# binary (first argument, else $TA_BIN, else target/debug/ta). Also runs the pure unit tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
TA_BIN="${1:-${TA_BIN:-$PWD/target/debug/ta}}"
export TA_BIN="$(realpath "$TA_BIN")"
if [ ! -x "$TA_BIN" ]; then
  echo "ta binary not found or not executable: $TA_BIN" >&2
  exit 1
fi
if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y chromium >/dev/null || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
  else
    sudo apt-get install -y chromium >/dev/null
  fi
fi
(cd gui/e2e && npm ci --no-audit --no-fund --loglevel=error)
node --test gui/tests/
mkdir -p target/e2e
node --test --test-concurrency=1 gui/e2e/

#!/usr/bin/env bash
# The project's test command: builds ta and runs every test suite (unit, engine
# conformance, HTTP conformance against a real `ta serve`, HTTP API, CLI), a bounded pass of
# an outside client over the whole API (schemathesis against /api/v1/swagger.json,
# scripts/check/api_fuzz.sh; one entry), the README's main command on a fresh HOME
# (scripts/check/readme.sh; one entry), then the web GUI's tests (pure modules with Node's
# test runner, and the end-to-end scenarios in Debian's chromium, gui/e2e/run.sh), and
# prints one closing `N passed, M failed, K skipped` line for the whole run.
set -uo pipefail
cd "$(dirname "$0")/.."
export TA_PASSWORD_ITERATIONS="${TA_PASSWORD_ITERATIONS:-1000}"
mkdir -p target
cargo build --locked || exit 1
cargo test --workspace --locked --no-fail-fast -- --test-threads=2 --show-output 2>&1 | tee target/test.log
status=${PIPESTATUS[0]}
# TA_API_FUZZ_EXAMPLES: examples per operation (10 keeps the pass near a minute and a half).
scripts/check/api_fuzz.sh --examples "${TA_API_FUZZ_EXAMPLES:-10}" --workers 1 2>&1 | tee target/api-fuzz.log
fuzz_status=${PIPESTATUS[0]}
if ! grep -q '^skipped:' target/api-fuzz.log; then
  if [ "$fuzz_status" = 0 ]; then result=passed; else result=failed; status=$fuzz_status; fi
  echo "api_fuzz result: $result" | tee -a target/api-fuzz.log
fi
# The README's main command with a fresh HOME and no TA_* variable (a release build): the
# server and `ta mlp` must analyse English and Russian from the installed language data.
scripts/check/readme.sh 2>&1 | tee target/readme-check.log
[ "${PIPESTATUS[0]}" = 0 ] || status=1
if command -v node >/dev/null && command -v npm >/dev/null; then
  gui/e2e/run.sh target/debug/ta 2>&1 | tee target/gui-test.log
  gui_status=${PIPESTATUS[0]}
  [ "$gui_status" = 0 ] || status=$gui_status
else
  echo "GUI tests skipped: node and npm are needed" >&2
  echo "# skipped 1" > target/gui-test.log
fi
# A test that could not run its check (no language data, no ../shared) prints one line
# starting with "skipped:" and passes; it is counted as skipped, not passed. The API fuzz
# pass is one entry: "api_fuzz result: passed|failed", or its own "skipped:" line; so is the
# README check ("readme_check result: passed|failed"). Node's
# runner closes each run with "# pass N", "# fail N" and "# skipped N".
awk '
  FNR == 1 { gui = (FILENAME ~ /gui-test/); fuzz = (FILENAME ~ /api-fuzz|readme-check/) }
  fuzz && /^(api_fuzz|readme_check) result: passed/ { p++ }
  fuzz && /^(api_fuzz|readme_check) result: failed/ { f++ }
  fuzz && /^skipped:/ { s++ }
  !gui && !fuzz && /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  !gui && !fuzz && /^skipped:/ { s++; p-- }
  gui && /^# pass / { p += $3 }
  gui && /^# fail / { f += $3 }
  gui && /^# skipped / { s += $3 }
  END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' target/test.log target/api-fuzz.log target/readme-check.log target/gui-test.log
exit "$status"

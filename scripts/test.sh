#!/usr/bin/env bash
# The project's test command: builds ta and runs every test suite (unit, engine
# conformance, HTTP conformance against a real `ta serve`, HTTP API, CLI), then prints
# one closing `N passed, M failed` line for the whole run.
set -uo pipefail
cd "$(dirname "$0")/.."
export TA_PASSWORD_ITERATIONS="${TA_PASSWORD_ITERATIONS:-1000}"
mkdir -p target
cargo build --locked || exit 1
cargo test --locked --no-fail-fast -- --test-threads=2 --show-output 2>&1 | tee target/test.log
status=${PIPESTATUS[0]}
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' target/test.log
exit "$status"

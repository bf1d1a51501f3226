#!/usr/bin/env bash
# An outside client against the HTTP API: schemathesis (pinned in api_fuzz.requirements.txt,
# installed into .cache/check/venv) reads /api/v1/swagger.json from a live `ta serve` (a free
# loopback port, a temporary data directory) and calls every operation as the built-in
# superuser with generated bodies, query strings and headers, then runs stateful sequences
# along the links it infers. Every check is on: no 5xx, no undocumented status, every body,
# content type and header as documented, 403 without credentials, 405 with `Allow` for
# undeclared methods, deleted resources gone (api_fuzz.toml tunes the checks to the
# conventions). Prints a summary line; exits non-zero on any failure. When Python cannot
# be set up it prints one `skipped:` line and exits 0.
#
# usage: scripts/check/api_fuzz.sh [--examples N] [--seed N] [--workers N]
# env:   TA_BIN (default: target/debug/ta, built when missing)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
examples=20
seed=1
workers=2
while [ $# -gt 0 ]; do
  case "$1" in
    --examples) examples=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    *) echo "usage: $0 [--examples N] [--seed N] [--workers N]" >&2; exit 2 ;;
  esac
done

VENV="$ROOT/.cache/check/venv"
REQUIREMENTS=scripts/check/api_fuzz.requirements.txt
if [ ! -x "$VENV/bin/schemathesis" ] || ! cmp -s "$REQUIREMENTS" "$VENV/requirements.txt"; then
  if ! { python3 -m venv --clear "$VENV" && "$VENV/bin/pip" install --quiet -r "$REQUIREMENTS"; } >&2; then
    echo "skipped: api_fuzz: could not install schemathesis into $VENV"
    exit 0
  fi
  cp "$REQUIREMENTS" "$VENV/requirements.txt"
fi

TA_BIN=${TA_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/ta}
[ -x "$TA_BIN" ] || cargo build --quiet

WORK=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
password="fuzz-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
TA_DATA_DIR="$WORK/data" TA_ADMIN_PASSWORD="$password" TA_PASSWORD_ITERATIONS=1000 \
  "$TA_BIN" serve --host 127.0.0.1 --port 0 >/dev/null 2>"$WORK/serve.log" &
server=$!
origin=
for _ in $(seq 600); do
  origin=$(sed -n 's|^ta: serving \(http://[^/]*\)/api/v1/.*|\1|p' "$WORK/serve.log" | head -1)
  [ -n "$origin" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$origin" ]; then
  echo "api_fuzz: ta serve did not start:" >&2
  cat "$WORK/serve.log" >&2
  exit 1
fi

# /health/ answers once the language data has loaded (the server loads it in the
# background from its start): the response-time check is about answers, not that one load.
curl -sf --max-time 600 "$origin/api/v1/health/" >/dev/null || echo "api_fuzz: /health/ did not answer" >&2

start=$(date +%s)
set +e
# Run from the work directory: schemathesis leaves its files in the current one.
(cd "$WORK" && TA_FUZZ_BASE="$origin/api/v1" TA_FUZZ_PASSWORD="$password" \
  PYTHONPATH="$ROOT/scripts/check" SCHEMATHESIS_HOOKS=api_fuzz_hooks \
  "$VENV/bin/schemathesis" --config-file "$ROOT/scripts/check/api_fuzz.toml" --no-color run \
  "$origin/api/v1/swagger.json" --url "$origin/api/v1" --checks all --exclude-checks missing_required_header,negative_data_rejection,not_a_server_error \
  --request-timeout 120 \
  --max-examples "$examples" --seed "$seed" --workers "$workers" \
  --generation-database none) 2>&1 | tee "$WORK/schemathesis.log"
status=${PIPESTATUS[0]}
set -e
elapsed=$(( $(date +%s) - start ))

# A 5xx must leave its cause in the server's log.
if grep -q "internal error\|panicked" "$WORK/serve.log"; then
  echo "api_fuzz: the server logged failures:" >&2
  grep "internal error\|panicked" "$WORK/serve.log" | sort | uniq -c | head -20 >&2
  status=1
fi
operations=$(sed -n 's/^  Tested: \([0-9]*\).*/\1/p' "$WORK/schemathesis.log" | tail -1)
cases=$(sed -n 's/^  \([0-9]*\) generated.*/\1/p' "$WORK/schemathesis.log" | tail -1)
failures=$(sed -n 's/.* found \([0-9]*\) unique failures\{0,1\}.*/\1/p' "$WORK/schemathesis.log" | tail -1)
echo "api_fuzz: schemathesis $("$VENV/bin/schemathesis" --version | awk '{print $NF}'), ${operations:-0} operations, ${cases:-0} test cases (--examples $examples, seed $seed), ${failures:-0} failures, ${elapsed}s"
exit "$status"

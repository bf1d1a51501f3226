#!/usr/bin/env bash
# The README's main command as a new user runs it: a fresh HOME, no TA_* variable, then
# `scripts/setup.sh && cargo run --release -- serve` (on a free port instead of 8000), and
# checks that the server and `ta mlp` (with the tour's TA_DATA_DIR=./ta-data) analyse
# English and Russian: language, lemmas and POS tags from the installed language data.
# Then the README's tour, as written, line by line (bash -e): every line must succeed.
# setup.sh reuses the data already built in the checkout, so this costs a copy of it and
# the release build. Prints `readme_check result: passed|failed`; exits non-zero on failure.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
home=$(mktemp -d)
work=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  rm -rf "$home" "$work"
}
trap cleanup EXIT
fail() {
  echo "readme check: $*" >&2
  echo "readme_check result: failed"
  exit 1
}
# a new user's environment: a fresh HOME and none of ta's variables (the Rust toolchain
# stays where it is installed)
clean_env=(env -u XDG_DATA_HOME -u XDG_CONFIG_HOME)
while IFS='=' read -r name _; do
  case "$name" in TA_* | TEXTA_*) clean_env+=(-u "$name") ;; esac
done < <(env)
clean_env+=(HOME="$home" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"${clean_env[@]}" scripts/setup.sh >"$work/setup.log" 2>&1 || fail "scripts/setup.sh failed: $(tail -3 "$work/setup.log")"
"${clean_env[@]}" cargo run --release --locked -- serve --port "$port" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 1800); do
  grep -q "serving http" "$work/serve.log" && break
  kill -0 "$server" 2>/dev/null || fail "the server exited: $(tail -3 "$work/serve.log")"
  sleep 1
done
grep -q "serving http" "$work/serve.log" || fail "the server did not start"
api="http://127.0.0.1:$port/api/v1"
key=$(curl -sf -X POST "$api/rest-auth/login/" -H 'Content-Type: application/json' \
  -d '{"username": "admin", "password": "1234"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["key"])') ||
  fail "cannot log in as admin with the default password"
texts='{"texts": ["The council postponed the vote on the new bridge.", "Лукашенко заявил о договоренности Москвы и Минска по нефти."]}'
curl -sf -X POST "$api/mlp/texts/" -H "Authorization: Token $key" -H 'Content-Type: application/json' \
  -d "$texts" >"$work/served.json" || fail "POST /mlp/texts/ failed: $(cat "$work/served.json")"
(cd "$work" && "${clean_env[@]}" TA_DATA_DIR=./ta-data "$ROOT/target/release/ta" mlp \
  "The council postponed the vote on the new bridge." >cli-en.json 2>cli.err &&
  "${clean_env[@]}" TA_DATA_DIR=./ta-data "$ROOT/target/release/ta" mlp \
    "Лукашенко заявил о договоренности Москвы и Минска по нефти." >cli-ru.json 2>>cli.err) ||
  fail "ta mlp failed: $(cat "$work/cli.err")"
curl -sf "$api/health/" >"$work/health.json" || fail "GET /health/ failed"
python3 - "$work" <<'PY' || fail "wrong language analysis (above)"
import json, sys
work = sys.argv[1]
served = json.load(open(f"{work}/served.json"))
cli = [json.load(open(f"{work}/cli-{lang}.json")) for lang in ("en", "ru")]
want = [
    ("en", "the council postpone the vote on the new bridge .", "DT NN VBD DT NN IN DT JJ NN ."),
    ("ru", "лукашенко заявить о договоренность москва и минск по нефть .", "PROPN VERB ADP NOUN PROPN CCONJ PROPN ADP NOUN PUNCT"),
]
ok = True
for source, items in (("server", served), ("ta mlp", cli)):
    for item, (lang, lemmas, tags) in zip(items, want):
        got = item["text"]
        if (got["lang"], got["lemmas"], got["pos_tags"]) != (lang, lemmas, tags):
            print(f"{source}: expected {lang} / {lemmas} / {tags}, got {got}", file=sys.stderr)
            ok = False
health = json.load(open(f"{work}/health.json"))
if health["mlp"].get("alive") is not True:
    print(f"/health/ mlp: {health['mlp']}", file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY
# The tour: the README's block after "## A short tour", run from the checkout as a new user
awk '/^## A short tour/ { tour = 1 } tour && /^```sh/ { on = 1; next } on && /^```/ { exit } on' README.md >"$work/tour.sh"
[ -s "$work/tour.sh" ] || fail "no tour block in README.md"
"${clean_env[@]}" bash -xeuo pipefail "$work/tour.sh" >"$work/tour.log" 2>&1 ||
  fail "the tour failed: $(tail -5 "$work/tour.log")"
echo "readme_check result: passed"

#!/usr/bin/env bash
# Coverage-guided fuzzing of ta's input parsers (cargo-fuzz / libFuzzer; targets in fuzz/,
# see fuzz/README.md). Runs one target or all of them, one after another, at low priority and
# within fixed bounds, then prints each target's executions, exec/s and coverage (cov/ft).
#
#   scripts/check/fuzz.sh [--target T] [--time SECONDS] [--rss-mb MB] [--no-build] [--keep-going]
#   scripts/check/fuzz.sh --replay [--target T]
#
# Bounds: -max_total_time=SECONDS (default 300) per target; -timeout=1 (any input running
# over 1 s is a failure); -rss_limit_mb and -malloc_limit_mb = MB (default 2048; a larger
# resident size or one allocation past it is a failure). New inputs go to fuzz/work/<target>
# (ignored by git); the committed seeds in fuzz/corpus/<target> are only read. Failures are
# written to fuzz/artifacts/<target>/ and make the script exit non-zero.
# The targets are built first (cargo fuzz build, into fuzz/target; --no-build runs the
# binaries already there, so edits elsewhere in src/ do not start a rebuild of the crate).
# --keep-going runs libFuzzer in fork mode: a timeout is written to the artifacts and fuzzing
# goes on (for a machine that also runs other work, where a slow input may only be a starved
# one: replay each artifact on an idle machine); a crash or OOM still stops the target.
# --replay runs every artifact of the targets once more, alone and within the same bounds,
# and prints its time: on an idle machine a timeout that replays under a second was a starved
# run, not a slow input. Exits non-zero when one still fails.
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")/../.."

time=300
rss_mb=2048
build=1
mode=()
replay=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --target) targets+=("$2"); shift 2 ;;
        --time) time="$2"; shift 2 ;;
        --rss-mb) rss_mb="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --replay) replay=1; build=0; shift ;;
        --keep-going) mode=(-fork=1 -ignore_timeouts=1 -ignore_ooms=0 -ignore_crashes=0); shift ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cd fuzz && ls fuzz_targets | sed "s/\.rs$//")
fi

if [ "$build" = 1 ]; then
    CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}" nice -n 15 cargo +nightly fuzz build --fuzz-dir fuzz >&2
fi
bin=fuzz/target/x86_64-unknown-linux-gnu/release
if [ "$replay" = 1 ]; then
    failed=0
    for t in "${targets[@]}"; do
        for f in fuzz/artifacts/"$t"/*; do
            [ -f "$f" ] || continue
            out=$("$bin/$t" "$f" -timeout=1 -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb" 2>&1) || failed=1
            echo "$t $(basename "$f"): $(grep -oE 'Executed .* in [0-9]+ ms|ERROR: libFuzzer: [a-z-]+' <<<"$out" | tail -1 | sed 's/^Executed [^ ]* //')"
        done
    done
    exit "$failed"
fi
summary=()
failed=0
for t in "${targets[@]}"; do
    mkdir -p "fuzz/work/$t" "fuzz/artifacts/$t"
    log="fuzz/work/$t.log"
    echo "== $t: ${time}s, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    status=0
    nice -n 15 "$bin/$t" "fuzz/work/$t" "fuzz/corpus/$t" -artifact_prefix="fuzz/artifacts/$t/" \
        -max_total_time="$time" -timeout=1 -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb" \
        "${mode[@]}" -print_final_stats=1 >"$log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1 || true)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    recorded=""
    if [ -z "$execs" ]; then
        # Fork mode prints no final stats: its last status line holds the same figures
        # ("#N: cov: C ft: F corp: K exec/s: R oom/timeout/crash: O/T/C time: S").
        last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
        execs=$(sed -nE 's/^#([0-9]+):.*/\1/p' <<<"$last")
        rate=$(sed -nE 's/.* exec\/s: ([0-9]+).*/\1/p' <<<"$last")
        recorded=$(sed -nE 's/.*(oom\/timeout\/crash: [0-9\/]+).*/ \1/p' <<<"$last")
    fi
    if [ "$status" -ne 0 ]; then
        failed=1
        grep -E '^==[0-9]+==|panicked|Test unit written|ERROR' "$log" | head -5 >&2 || true
    fi
    summary+=("$(printf '%-14s exit %-3s execs %-10s exec/s %-7s %-22s peak_rss_mb %s%s' \
        "$t" "$status" "${execs:-?}" "${rate:-?}" "${cov:-cov: ? ft: ?}" "${rss:-?}" "$recorded")")
done
printf '%s\n' "${summary[@]}"
exit "$failed"

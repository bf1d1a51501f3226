#!/usr/bin/env bash
# Refreshes tests/conformance/ from ../shared/conformance/ (the shared conformance cases). The
# tests read only the copy, so a clone of this repository builds and tests on its own;
# `cargo test --test conformance_copy` fails while the copy differs from ../shared.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/../shared/conformance"
[ -d "$SRC" ] || { echo "no $SRC beside the checkout" >&2; exit 1; }
rm -rf "$ROOT/tests/conformance"
cp -r "$SRC/." "$ROOT/tests/conformance/"
echo "tests/conformance/ now equals $SRC"

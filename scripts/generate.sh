#!/usr/bin/env bash
# Writes the JavaScript side of the names the Rust code declares (crates/generate):
# pkg-template/names.js and the name unions of pkg-template/*.d.ts. Run it after adding or
# renaming an operation, a tool, a store or a name of an enum a .d.ts union mirrors, and
# commit what it writes. `--check` writes nothing and fails when a file is stale
# (scripts/test.sh runs it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
cargo run --quiet -p agentmem-generate -- "$ROOT" "$@"

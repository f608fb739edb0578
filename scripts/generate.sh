#!/usr/bin/env bash
# Writes what is generated from the Rust code (crates/generate): first the registries of the
# capabilities whose parts are files (src/memory/tools/registry.rs, src/state/registry.rs),
# then, from the crate built with them, pkg-template/names.js, the name unions of
# pkg-template/*.d.ts, tests/facades/option_keys.ts and tests/stack/declared.json. Run it
# after adding, removing or renaming a tool, a store, an operation, an option, a name of an
# enum a .d.ts union mirrors or a table or function a capability declares, and commit what
# it writes. `--check` writes nothing and fails when a file is
# stale (scripts/test.sh runs it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
cargo run --quiet -p agentmem-generate --no-default-features -- "$ROOT" rust "$@"
cargo run --quiet -p agentmem-generate -- "$ROOT" js "$@"

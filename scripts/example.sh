#!/usr/bin/env bash
# Runs the main example against a freshly built package.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/bootstrap.sh"
[ -f "$PKG/agentmem_bg.wasm" ] || "$ROOT/scripts/build.sh"
deno run --allow-read deno/examples/quickstart.ts

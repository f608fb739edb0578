#!/usr/bin/env bash
# Side-by-side benchmark: agentmem against its npm peers, at 0 ms and behind a delay proxy.
#   ./scripts/stack.sh up && ./scripts/build.sh && ./bench/run.sh
# Environment: BENCH_QUICK=1 (few samples, for a smoke run), BENCH_DELAYS (one-way delays
# in ms, default 0,2,10), BENCH_ONLY (sections, e.g. concurrency,cpu). Writes bench/results/latest.md.
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
HERE="$ROOT/bench"
cd "$HERE"
stamp="$HERE/node_modules/.installed-lock"
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
  log "npm ci (bench: peers from npm)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
[ -f "$PKG/agentmem_bg.wasm" ] || { echo "bench/run.sh: no built package in $PKG (run scripts/build.sh)" >&2; exit 1; }
[ -f "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/env" ] || { echo "bench/run.sh: start the stack first: scripts/stack.sh up" >&2; exit 1; }
ln -sfn "$PKG" node_modules/agentmem-supabase
NODE_OPTIONS="--preserve-symlinks ${NODE_OPTIONS:-}" node bench.mjs

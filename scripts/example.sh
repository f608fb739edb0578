#!/usr/bin/env bash
# Runs the examples against a freshly built package: the ids quickstart (no database),
# then the memory-tools edge function against the local stack (started and stopped here
# unless it was already running).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/bootstrap.sh"
"$ROOT/scripts/build.sh"
log "example: ids (deno/examples/quickstart.ts)"
deno run --allow-read deno/examples/quickstart.ts

log "example: memory-tools edge function (deno/examples/memory_tools.ts)"
was_up=0
[ -f "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/gateway/pid" ] && kill -0 "$(cat "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/gateway/pid")" 2>/dev/null && was_up=1
"$ROOT/scripts/stack.sh" up --test-fixtures
[ "$was_up" = 1 ] || trap '"$ROOT/scripts/stack.sh" down >/dev/null 2>&1 || true' EXIT
(cd deno && deno run --allow-read --allow-env --allow-net examples/memory_tools.ts)

#!/usr/bin/env bash
# Runs the examples against a freshly built package: the ids quickstart (no database),
# then the memory-tools and LangGraph agent edge functions against the local stack (started and stopped here
# unless it was already running). AGENTMEM_PKG / AGENTMEM_BUILD_ROUTE choose where and how
# the package is built (scripts/build.sh); scripts/test.sh runs this with the stable route.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/bootstrap.sh"
"$ROOT/scripts/build.sh"

# deno/deno.json and the LangGraph function's deno.json map the package to the repository's
# pkg/; the examples run with the same settings, pointed at $PKG.
configs=$(mktemp -d)
at_pkg() { # a deno.json → the same with the package at $PKG
  node -e '
    const [from, to, pkg] = process.argv.slice(1);
    const c = JSON.parse(require("fs").readFileSync(from, "utf8"));
    for (const k of Object.keys(c.imports)) c.imports[k] = c.imports[k].replace(/^(\.\.\/)+pkg\//, pkg + "/");
    require("fs").writeFileSync(to, JSON.stringify(c));
  ' "$1" "$2" "$PKG"
}
at_pkg "$ROOT/deno/deno.json" "$configs/deno.json"
at_pkg "$ROOT/supabase/functions/langgraph-agent/deno.json" "$configs/langgraph.json"
examples=(deno run --config "$configs/deno.json" --allow-read)

log "example: ids (deno/examples/quickstart.ts)"
"${examples[@]}" deno/examples/quickstart.ts

log "example: memory-tools edge function (deno/examples/memory_tools.ts)"
was_up=0
[ -f "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/gateway/pid" ] && kill -0 "$(cat "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/gateway/pid")" 2>/dev/null && was_up=1
"$ROOT/scripts/stack.sh" up --test-fixtures
[ "$was_up" = 1 ] || trap '"$ROOT/scripts/stack.sh" down >/dev/null 2>&1 || true' EXIT
(cd deno && "${examples[@]}" --allow-env --allow-net examples/memory_tools.ts)

log "example: a LangGraph agent edge function with memory tools (deno/edge/langgraph_agent.ts)"
deno run --config "$configs/langgraph.json" --allow-read --allow-env --allow-net --allow-sys deno/edge/langgraph_agent.ts

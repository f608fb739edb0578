#!/usr/bin/env bash
# Runs the examples against a freshly built package: the ids quickstart (no database),
# then the memory-tools edge function against the local stack (started and stopped here
# unless it was already running). AGENTMEM_PKG / AGENTMEM_BUILD_ROUTE choose where and how
# the package is built (scripts/build.sh); scripts/test.sh runs this with the stable route.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/bootstrap.sh"
"$ROOT/scripts/build.sh"

# deno/deno.json maps the package to ../pkg; the examples run with the same settings,
# pointed at $PKG.
config=$(mktemp -d)/deno.json
node -e '
  const [from, to, pkg] = process.argv.slice(1);
  const c = JSON.parse(require("fs").readFileSync(from, "utf8"));
  for (const k of Object.keys(c.imports)) c.imports[k] = c.imports[k].replace(/^\.\.\/pkg\//, pkg + "/");
  require("fs").writeFileSync(to, JSON.stringify(c));
' "$ROOT/deno/deno.json" "$config" "$PKG"
examples=(deno run --config "$config" --allow-read)

log "example: ids (deno/examples/quickstart.ts)"
"${examples[@]}" deno/examples/quickstart.ts

log "example: memory-tools edge function (deno/examples/memory_tools.ts)"
was_up=0
[ -f "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/gateway/pid" ] && kill -0 "$(cat "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/gateway/pid")" 2>/dev/null && was_up=1
"$ROOT/scripts/stack.sh" up --test-fixtures
[ "$was_up" = 1 ] || trap '"$ROOT/scripts/stack.sh" down >/dev/null 2>&1 || true' EXIT
(cd deno && "${examples[@]}" --allow-env --allow-net examples/memory_tools.ts)

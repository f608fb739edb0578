#!/usr/bin/env bash
# Type-checks the package's hand-written JavaScript (the facades of pkg-template/, as
# scripts/build.sh copies them into pkg/, kept in pkg/unbundled/ before scripts/bundle.mjs
# joins them into core.js) under strict settings, against the hand-written
# declarations: each facade starts with `// @ts-check` and types its exports with JSDoc
# imported from its .d.ts (client.d.ts, memory.d.ts, state.d.ts, which index.d.ts gathers;
# langgraph.d.ts, ids.d.ts, errors.d.ts), and types.ts
# assigns every module's exports to what those files declare, so a facade and its
# declared type cannot drift apart. Needs scripts/build.sh first.
#
# deno check runs with this folder's deno.json, not from pkg/ with its package.json (which
# would make Deno resolve types as for an npm project and look for @types/node). The
# saver's peer @langchain/langgraph-checkpoint comes from npm through that import map, at
# the version tests/langgraph installs.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/facades"
[ -f "$PKG/unbundled/client.js" ] || { echo "check.sh: no built package in $PKG (run scripts/build.sh)" >&2; exit 1; }

# The same peer version as the saver's own tests, so both see one API.
want=$(node -p 'require(process.argv[1]).devDependencies["@langchain/langgraph-checkpoint"]' "$ROOT/tests/langgraph/package.json")
grep -q "\"npm:@langchain/langgraph-checkpoint@$want\"" "$HERE/deno.json" || {
  echo "check.sh: tests/facades/deno.json must map @langchain/langgraph-checkpoint to npm:@langchain/langgraph-checkpoint@$want, as tests/langgraph/package.json pins it" >&2
  exit 1
}

cd "$ROOT/pkg-template"
facades=(*.js bin/*.js)
# A facade without the pragma would simply not be checked.
missing=$(grep -L -x '// @ts-check' "${facades[@]}" || true)
if [ -n "$missing" ]; then
  echo "check.sh: these facades lack a \`// @ts-check\` line, so nothing would check them:" $missing >&2
  exit 1
fi
# pkg/unbundled/: the JavaScript before scripts/bundle.mjs joined it into core.js.
cd "$PKG/unbundled"
deno check --quiet --config "$HERE/deno.json" "${facades[@]}" "$HERE/types.ts" "$HERE/option_keys.ts"
# errors.js names its own declarations (@ts-self-types, which the .d.ts chain needs), and
# with that line TypeScript does not hold its class to the `@implements` of errors.d.ts's
# AgentmemError. So a copy without the line is checked as well.
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp errors.d.ts "$copy/"
grep -v '@ts-self-types' errors.js >"$copy/errors.js"
deno check --quiet --config "$HERE/deno.json" "$copy/errors.js"
log "facades type-check (strict) against index.d.ts (client.d.ts, memory.d.ts, state.d.ts), langgraph.d.ts, ids.d.ts, errors.d.ts"

#!/usr/bin/env bash
# Runs every test layer on a fresh machine: installs tools, starts the local stack
# (Postgres + migrations + gateway), builds the package, then
#   1. native:        cargo test --workspace (core logic, CPython UUIDv5 comparison, and
#                     the gateway against the real Postgres), plus the Postgres script checks
#                     and the gateway conformance suites (tests/gateway/run.sh for
#                     PostgREST, tests/auth/run.sh for Supabase Auth)
#   2. wasm-bindgen:  the core compiled to wasm32, in Node and in headless Chromium
#   3. package:       the facades type-checked against the .d.ts files (tests/facades/check.sh),
#                     the built package in Deno (deno test), Node and headless Chromium,
#                     the LangGraph saver in Node (tests/langgraph/run.sh), and the packed
#                     tarball installed into fresh projects (tests/install/run.sh)
#   4. stable route:  the package built without unstable options (scripts/build.sh),
#                     smoke-tested with the examples (scripts/example.sh)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
start=$SECONDS

"$ROOT/scripts/bootstrap.sh"
log "environment: the pinned toolchain with what rust-toolchain.toml lists"
"$ROOT/tests/env/toolchain_test.sh"

log "format and lints"
cargo fmt --all --check
cargo clippy --quiet --workspace --all-targets -- -D warnings
cargo clippy --quiet --target wasm32-unknown-unknown -- -D warnings
# The agentmem-supabase/ids module is only real code on wasm32 (natively it is an empty crate).
cargo clippy --quiet --target wasm32-unknown-unknown -p agentmem-ids -- -D warnings
log "generated files: pkg-template/names.js and the .d.ts unions against the Rust declarations (scripts/generate.sh --check)"
"$ROOT/scripts/generate.sh" --check

log "stack: Postgres + migrations + gateway"
"$ROOT/scripts/stack.sh" up --fresh --test-fixtures
trap '"$ROOT/scripts/stack.sh" down >/dev/null 2>&1 || true' EXIT

log "layer 1: native cargo test (crate, gateway against the stack)"
cargo test --quiet --workspace
log "layer 1: Postgres script checks (stack shape, SQL files re-runnable, checkpoint SQL, memory SQL, state SQL, contractors SQL, cached plans)"
"$ROOT/tests/stack/postgres_test.sh"
"$ROOT/tests/stack/migrations_test.sh"
"$ROOT/tests/stack/checkpoints_sql_test.sh"
"$ROOT/tests/stack/memories_sql_test.sh"
"$ROOT/tests/stack/state_sql_test.sh"
"$ROOT/tests/stack/contractors_sql_test.sh"
"$ROOT/tests/stack/plans_sql_test.sh"
log "layer 1: memory search at scale (the search contract at 36,000 memories, stale and fresh statistics)"
"$ROOT/tests/stack/memory_scale_test.sh"
log "layer 1: gateway conformance (supabase-js from npm against the gateway, PostgREST's answers)"
"$ROOT/tests/gateway/run.sh"
log "layer 1: local Supabase Auth conformance (auth-js and supabase-js from npm against /auth/v1, Supabase Auth's answers)"
"$ROOT/tests/auth/run.sh"

log "layer 2: wasm-bindgen tests (core on wasm32) in Node"
wasm-pack test --node --no-default-features
log "layer 2: wasm-bindgen tests (core on wasm32) in headless Chromium"
wasm-pack test --headless --chrome --chromedriver "$(command -v chromedriver)" \
  --no-default-features --features browser-tests

"$ROOT/scripts/build.sh"
log "README.md's figures against the build (scripts/readme-figures.mjs)"
node "$ROOT/scripts/readme-figures.mjs" --check

log "layer 3: the facades' JavaScript against their .d.ts files (deno check, strict)"
"$ROOT/tests/facades/check.sh"
log "layer 3: package in Deno"
# --allow-write=.: result_types_test.ts writes the file it deno-checks into deno/.
(cd deno && deno test --quiet --allow-read --allow-write=. --allow-run --allow-env --allow-net)
# Benchmarks and examples are not run here (the examples by scripts/example.sh), but they
# must keep compiling against the package's types.
(cd deno && deno check --quiet bench/*.ts examples/*.ts)
log "layer 3: the LangGraph agent edge function over HTTP, two users (its own import map and README's permissions)"
deno test --quiet --config supabase/functions/langgraph-agent/deno.json --allow-read --allow-env --allow-net --allow-sys \
  deno/edge/langgraph_agent_check.ts
log "layer 3: the LangGraph store edge function over HTTP, two users (AgentmemStore + AgentmemSaver in a graph)"
deno test --quiet --config supabase/functions/langgraph-store/deno.json --allow-read --allow-env --allow-net --allow-sys \
  deno/edge/langgraph_store_check.ts
log "layer 3: tool definitions against the vendors' SDK types (tsc)"
"$ROOT/tests/sdk-types/run.sh"
log "layer 3: package in Node (resolved by name through the exports map)"
mkdir -p tests/node/node_modules
ln -sfn "$PKG" tests/node/node_modules/agentmem-supabase
node --test tests/node/
log "layer 3: package in headless Chromium"
node tests/browser/run.mjs
log "layer 3: visitors without accounts: the COIA landing edge function with anonymous sign-ins, over HTTP and in headless Chromium (sign-up keeps their data, visitors kept apart)"
"$ROOT/tests/visitors/run.sh"
log "layer 3: LangGraph saver in Node (upstream validation suite, RLS, faults, a graph resumed by a 2nd process)"
"$ROOT/tests/langgraph/run.sh"
log "layer 3: npm pack, the tarball installed into fresh projects (Node, Deno npm: and copied, esbuild and Vite in Chromium)"
"$ROOT/tests/install/run.sh"
log "stable route: the package built without unstable options (scripts/build.sh's fallback), smoke-tested with the examples"
AGENTMEM_PKG="$ROOT/pkg-stable" AGENTMEM_BUILD_ROUTE=stable "$ROOT/scripts/example.sh"

log "all layers passed in $((SECONDS - start))s"

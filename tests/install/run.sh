#!/usr/bin/env bash
# Packs pkg/ with `npm pack` and installs the tarball into fresh projects, as a user
# would, against the running stack (scripts/stack.sh up --test-fixtures):
#   node       ESM by package name: main entry, /langgraph with its npm peer, the
#              agentmem-sql bin (copy/print/list; the printed SQL applied to an empty
#              database), internal files imported by path, a missing .wasm
#   deno-npm   package.json + node_modules, nodeModulesDir "manual": npm:<name> and bare
#   deno-copy  the package as a copied folder, through its README's import map: deno check + run
#   bundlers   a "type": "commonjs" project: esbuild bundles (Chromium with and without
#              the .wasm copied, Deno, the .js-entry pitfall) and a Vite build (Chromium)
#   types      the types in four project shapes, each compiling a graph with the saver and
#              the store: "type": "commonjs" + nodenext (also run, by require() and by
#              await import()), "type": "module" + nodenext, moduleResolution bundler, Deno
#   quickstart the packed README's quick start as written, in a fresh project, run twice
# npm dependencies are pinned by each project's package-lock.json and installed with
# `npm ci`. The package name is read from pkg/package.json. Needs scripts/build.sh first.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/install"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
NPM_FLAGS=(--no-audit --no-fund --loglevel=error --prefer-offline)
die() { echo "tests/install: $*" >&2; exit 1; }

NAME=$(node -p 'require(process.argv[1]).name' "$PKG/package.json")
export AGENTMEM_PACKAGE="$NAME"
# The stack's URL and keys, and a user's token for RLS.
set -a
# shellcheck disable=SC1091
source "${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}/env"
set +a
# The user exists in auth.users (a token of a user that does not is refused), as Supabase
# Auth would have made them: through the test fixture, on the service role.
new_user_jwt() { node --input-type=module -e '
  const { mintJwt } = await import(process.argv[1]);
  const id = crypto.randomUUID();
  const r = await fetch(`${process.env.SUPABASE_URL}/rest/v1/rpc/test_create_user`, {
    method: "POST", body: JSON.stringify({ p_id: id }),
    headers: { apikey: process.env.SUPABASE_SERVICE_ROLE_KEY, authorization: `Bearer ${process.env.SUPABASE_SERVICE_ROLE_KEY}`, "content-type": "application/json" },
  });
  if (!r.ok) throw new Error(`test_create_user: ${r.status} ${await r.text()}`);
  console.log(await mintJwt(process.env.SUPABASE_JWT_SECRET, id));' "$ROOT/tests/support/jwt.js"; }
AGENTMEM_USER_JWT=$(new_user_jwt)
export AGENTMEM_USER_JWT

log "npm pack ($NAME)"
(cd "$PKG" && npm pack --json --pack-destination "$WORK" 2>/dev/null) >"$WORK/pack.json"
TARBALL="$WORK/$(node -p 'require(process.argv[1])[0].filename' "$WORK/pack.json")"
node "$HERE/check-pack.mjs" "$WORK/pack.json" "$ROOT"
# The tarball as a user sees it (its README is the one the tests below follow).
tar -xzf "$TARBALL" -C "$WORK"
README="$WORK/package/README.md"
# A block of the packed README: the first fenced block after the line `<!-- <marker> -->`.
readme_block() {
  node -e '
    const text = require("node:fs").readFileSync(process.argv[1], "utf8");
    const at = text.indexOf(`<!-- ${process.argv[2]} -->`);
    if (at < 0) throw new Error(`the packed README has no <!-- ${process.argv[2]} --> block`);
    process.stdout.write(text.slice(at).match(/```[a-z]*\n([\s\S]*?)```/)[1]);' "$README" "$1"
}
# What `npm publish` would do with the tarball (nothing is sent: --dry-run).
(cd "$WORK" && npm publish --dry-run --access public "$TARBALL" >"$WORK/publish.log" 2>&1) ||
  { cat "$WORK/publish.log" >&2; die "npm publish --dry-run refused the tarball"; }

# A fresh copy of a project, its pinned dependencies, then the tarball (saved into the
# copy's package.json, as `npm install <tarball>` does; the committed files stay as they are).
project() {
  local name=$1 dir="$WORK/$1"
  cp -R "$HERE/$name" "$dir"
  rm -rf "$dir/node_modules" "$dir/dist"
  find "$dir" -type f \( -name '*.mjs' -o -name '*.js' -o -name '*.ts' \) -exec sed -i "s|__PACKAGE__|$NAME|g" {} +
  (cd "$dir" && npm ci "${NPM_FLAGS[@]}" && npm install "${NPM_FLAGS[@]}" "$TARBALL") >&2
  echo "$dir"
}
results=()
pass() { results+=("$1"); log "ok: $1"; }

# --- Node ---------------------------------------------------------------------------
log "node: a fresh ESM project"
dir=$(project node)
(cd "$dir" && node main.mjs)
for f in api.js wasm.js client.js memory.js state.js langgraph.js io.js json.js errors.js; do
  (cd "$dir" && node internal.mjs "$dir/node_modules/$NAME" "$f")
done
mkdir -p "$WORK/nowasm/node_modules"
cp -R "$dir/node_modules/$NAME" "$WORK/nowasm/node_modules/$NAME"
rm "$WORK/nowasm/node_modules/$NAME/agentmem_bg.wasm"
cp "$dir/nowasm.mjs" "$WORK/nowasm/" && echo '{"type":"module"}' >"$WORK/nowasm/package.json"
(cd "$WORK/nowasm" && node nowasm.mjs)
pass "node: main entry + /langgraph by name, internal files, missing .wasm"

log "node: agentmem-sql (the SQL into a project, and into the dashboard's SQL editor)"
sql() { (cd "$dir" && node_modules/.bin/agentmem-sql "$@"); }
migrations=("$ROOT"/supabase/migrations/*.sql)
[ "$(sql list | wc -l)" -eq "${#migrations[@]}" ] || die "agentmem-sql list: not ${#migrations[@]} files"
for help in --help -h help "copy --help" "print -h --with nope"; do
  # shellcheck disable=SC2086
  out=$(sql $help) || die "agentmem-sql $help: exit $?"
  grep -q '^Usage: agentmem-sql' <<<"$out" || die "agentmem-sql $help: no usage text"
done
sql copy >/dev/null
copied=("$dir"/supabase/migrations/*_agentmem_*.sql)
[ "${#copied[@]}" -eq "${#migrations[@]}" ] || { ls "$dir/supabase/migrations"; exit 1; }
for i in "${!migrations[@]}"; do
  want=$(basename "${migrations[$i]}" | sed 's/^[0-9]*_//')
  got=$(basename "${copied[$i]}")
  [[ $got =~ ^[0-9]{14}_agentmem_${want}$ ]] || { echo "copy: ${copied[$i]} is not <version>_agentmem_$want" >&2; exit 1; }
  cmp -s "${migrations[$i]}" "${copied[$i]}" || { echo "copy: ${copied[$i]} differs from the source" >&2; exit 1; }
done
sql copy | grep -q "Nothing to add" || { echo "copy twice: expected nothing to add" >&2; exit 1; }
echo "-- edited" >>"${copied[1]}"
if sql copy --with deal-scoped 2>"$WORK/refused"; then echo "copy over an edited file: expected a refusal" >&2; exit 1; fi
grep -q "refusing to write" "$WORK/refused" || { cat "$WORK/refused"; exit 1; }
[ "$(ls "$dir"/supabase/migrations | wc -l)" -eq "${#migrations[@]}" ] || { echo "a refused copy wrote files" >&2; exit 1; }
cp "${migrations[1]}" "${copied[1]}"
sql copy --with deal-scoped >/dev/null
last=$(ls "$dir"/supabase/migrations | sort | tail -1)
[[ $last == *_agentmem_langgraph_deal_scoped.sql ]] || { echo "optional file not last: $last" >&2; exit 1; }
# The printed script on an empty database that has only what Supabase provides
# (roles, auth, extensions schema: supabase/local/bootstrap.sql).
db="agentmem_install_$$"
psql() { "$ROOT/scripts/postgres.sh" psql -X -q -v ON_ERROR_STOP=1 "$@"; }
psql -c "create database $db" >/dev/null
trap 'psql -c "drop database if exists $db" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
PGOPTIONS="-c client_min_messages=warning" psql -d "$db" --single-transaction -f "$ROOT/supabase/local/bootstrap.sql" >/dev/null
# Silent (no result rows: psql -q prints nothing), and again on top of itself.
sql print --with deal-scoped --with postgres-saver >"$WORK/all.sql"
for run in first second; do
  out=$(PGOPTIONS="-c client_min_messages=warning" psql -d "$db" --single-transaction -f "$WORK/all.sql")
  [ -z "$out" ] || die "agentmem-sql print: psql printed something on the $run run: $(head -5 <<<"$out")"
done
tables=$(psql -d "$db" -At -c "select count(*) from pg_tables where schemaname = 'public' and tablename in ('agent_memories', 'langgraph_checkpoints', 'unified_conversations', 'workflow_agent_states', 'research_sessions', 'deals')")
[ "$tables" = 6 ] || die "the printed SQL left $tables of 6 tables"
pass "node: agentmem-sql copy (versions, refusal, --with) and print (applied twice to an empty database, no output)"

log "node: agentmem-sql --only (parts and what they need)"
# Every migration is a part's, or comes with parts (tenancy, pgvector's extensions).
sql parts >"$WORK/parts.txt"
for m in "${migrations[@]}"; do grep -q "file: supabase/migrations/$(basename "$m")" "$WORK/parts.txt" || die "agentmem-sql parts: $(basename "$m") is in no part"; done
want=$(printf '%s\n' extensions tenancy langgraph_checkpoints agent_memories langgraph_store)
got=$(sql list --only langgraph,store,memories | sed 's#.*/[0-9]*_##; s#\.sql$##')
[ "$got" = "$want" ] || die "agentmem-sql list --only langgraph,store,memories: $got"
[ "$(sql list --only workflow | sed 's#.*/[0-9]*_##')" = "$(printf '%s\n' tenancy.sql workflow_agent_states.sql)" ] || die "--only workflow"
[ "$(sql list --only conversations | sed 's#.*/[0-9]*_##' | sort | tr '\n' ' ')" = "contractors.sql tenancy.sql unified_conversations.sql " ] || die "--only conversations does not bring contractors"
if sql list --only langgraph,nope 2>"$WORK/refused"; then die "--only took an unknown part"; fi
grep -q 'unknown part "nope"' "$WORK/refused" || { cat "$WORK/refused"; exit 1; }
# copy --only writes those files; a later copy of every part adds only the others.
(cd "$dir" && mkdir only && cd only && ../node_modules/.bin/agentmem-sql copy --only langgraph,store,memories >/dev/null)
[ "$(ls "$dir/only/supabase/migrations" | sed 's#^[0-9]*_agentmem_##; s#\.sql$##')" = "$want" ] || { ls "$dir/only/supabase/migrations"; die "copy --only"; }
(cd "$dir/only" && ../node_modules/.bin/agentmem-sql copy >/dev/null)
[ "$(ls "$dir/only/supabase/migrations" | wc -l)" -eq "${#migrations[@]}" ] || die "copy after copy --only"
# The printed parts on an empty database: silent, twice; only their tables; and the same
# schema as their files applied one by one as they ship (pg_dump).
bindir=$(psql -At -c "select setting from pg_config where name = 'BINDIR'")
dump() { "$bindir/pg_dump" -h 127.0.0.1 -p "${AGENTMEM_PG_PORT:-54329}" -U postgres -d "$1" --schema-only --restrict-key=agentmem; }
for d in "${db}_only" "${db}_files"; do
  psql -c "create database $d" >/dev/null
  PGOPTIONS="-c client_min_messages=warning" psql -d "$d" --single-transaction -f "$ROOT/supabase/local/bootstrap.sql" >/dev/null
done
trap 'for d in "$db" "${db}_only" "${db}_files"; do psql -c "drop database if exists $d" >/dev/null 2>&1; done; rm -rf "$WORK"' EXIT
sql print --only langgraph,store,memories >"$WORK/only.sql"
for run in first second; do
  out=$(PGOPTIONS="-c client_min_messages=warning" psql -d "${db}_only" --single-transaction -f "$WORK/only.sql")
  [ -z "$out" ] || die "agentmem-sql print --only: psql printed something on the $run run: $(head -5 <<<"$out")"
done
tables=$(psql -d "${db}_only" -At -c "select string_agg(tablename, ' ' order by tablename) from pg_tables where schemaname = 'public'")
[ "$tables" = "agent_memories agent_memory_counters agent_memory_vectors langgraph_checkpoint_blobs langgraph_checkpoint_writes langgraph_checkpoints langgraph_store_items langgraph_store_vectors langgraph_threads memory_access_log memory_references" ] ||
  die "print --only langgraph,store,memories made the tables: $tables"
while read -r f; do
  PGOPTIONS="-c client_min_messages=warning" psql -d "${db}_files" -f "$dir/$f" >/dev/null
done < <(sql list --only langgraph,store,memories)
diff <(dump "${db}_only") <(dump "${db}_files") >"$WORK/dump.diff" || { head -40 "$WORK/dump.diff" >&2; die "print --only: the schema differs from the files applied as they ship"; }
pass "node: agentmem-sql --only (parts, dependencies, copy, print: silent, only its tables, the files' schema)"

log "node: agentmem-inspect (the inspector served for the stack, from the installed package)"
out="$WORK/inspect.out"
(cd "$dir" && exec node_modules/.bin/agentmem-inspect --url "$SUPABASE_URL" --key "$SUPABASE_ANON_KEY" --port 0) >"$out" 2>&1 &
inspect_pid=$!
for _ in $(seq 100); do grep -q '/inspector/' "$out" && break; sleep 0.1; done
page=$(grep -o 'http://127\.0\.0\.1:[0-9]*/inspector/' "$out") || { kill "$inspect_pid"; die "agentmem-inspect printed no URL: $(cat "$out")"; }
# The page, its config (URL and anon key, nothing else), and what the page loads.
node --input-type=module -e '
  const page = process.argv[1];
  const get = async (path, type) => {
    const r = await fetch(new URL(path, page));
    if (!r.ok || !r.headers.get("content-type").startsWith(type)) throw new Error(`${path}: ${r.status} ${r.headers.get("content-type")}`);
    return r;
  };
  if (!(await (await get("", "text/html")).text()).includes("inspector.js")) throw new Error("the page does not load inspector.js");
  const config = await (await get("config.json", "application/json")).json();
  if (JSON.stringify(config) !== JSON.stringify({ url: process.env.SUPABASE_URL, apiKey: process.env.SUPABASE_ANON_KEY })) throw new Error(`config.json: ${JSON.stringify(config)}`);
  for (const [path, type] of [["inspector.js", "text/javascript"], ["inspector.css", "text/css"], ["../browser.js", "text/javascript"], ["../agentmem_bg.wasm", "application/wasm"]]) await get(path, type);
  if ((await fetch(new URL("../package.json", page))).status !== 404) throw new Error("serves files other than the page");' "$page" ||
  { kill "$inspect_pid"; die "agentmem-inspect: the page is not served as expected"; }
kill "$inspect_pid"
if (cd "$dir" && node_modules/.bin/agentmem-inspect --url "$SUPABASE_URL" --key "$SUPABASE_SECRET_KEY" --port 0 >"$out" 2>&1); then
  die "agentmem-inspect accepted a secret key"
fi
grep -q 'refusing' "$out" || die "agentmem-inspect: no refusal for a secret key: $(cat "$out")"
pass "node: agentmem-inspect (serves the inspector and its config; refuses a secret key)"

# --- Deno ---------------------------------------------------------------------------
log "deno: npm:$NAME from node_modules (nodeModulesDir: manual)"
dir=$(project deno-npm)
(cd "$dir" && deno check --quiet main.ts && deno run --quiet --allow-read --allow-env --allow-net main.ts)
pass "deno: npm:$NAME and bare $NAME from package.json + node_modules, /langgraph"

log "deno: a copied folder through the packed README's import map (deno check, then run)"
dir=$(project deno-copy)
# The map exactly as the packed README shows it, after the marker line; the repository's
# README shows the same one.
readme_block deno-import-map >"$WORK/map.json"
node - "$ROOT/README.md" "$WORK/map.json" "$dir/deno.json" <<'JS'
const fs = require("node:fs");
const [repoReadme, map, out] = process.argv.slice(2);
const text = fs.readFileSync(repoReadme, "utf8");
const at = text.indexOf("<!-- deno-import-map -->");
if (at < 0) throw new Error("README.md has no <!-- deno-import-map --> block");
const config = JSON.parse(fs.readFileSync(map, "utf8"));
if (JSON.stringify(JSON.parse(text.slice(at).match(/```jsonc?\n([\s\S]*?)```/)[1])) !== JSON.stringify(config)) {
  throw new Error("README.md's deno import map is not the package README's");
}
// Pinned by this project's package-lock.json instead of fetched by Deno.
config.nodeModulesDir = "manual";
config.lock = false;
fs.writeFileSync(out, JSON.stringify(config, null, 2));
JS
target=$(node -p 'const m = require(process.argv[1]).imports; m[process.argv[2]]' "$dir/deno.json" "$NAME")
[ -n "$target" ] && [ "$target" != undefined ] || die "the packed README's import map does not map $NAME"
mkdir -p "$dir/$(dirname "$target")"
cp -R "$WORK/package/." "$dir/$(dirname "$target")/"
(cd "$dir" && deno check --quiet main.ts && deno run --quiet --allow-read --allow-env --allow-net main.ts)
pass "deno: copied folder + the packed README's import map (deno check, run)"

# --- Types ---------------------------------------------------------------------------
log "types: a graph with AgentmemSaver and AgentmemStore in four project shapes"
dir=$(project types)
tsc() { (cd "$dir" && node_modules/.bin/tsc "$@"); }
tsc -p esm/tsconfig.json
tsc -p bundler/tsconfig.json
(cd "$dir" && deno check --quiet esm/graph.ts)
# "type": "commonjs" + nodenext: static imports (require()), await import() and import type
# check; compiled to CommonJS, both ways run against the stack.
tsc -p cjs/tsconfig.json
(cd "$dir" && node cjs/dist/graph.js)
# The same files with module commonjs (older tsc --init's default; node10 resolution, which
# reads no exports map and finds the .d.ts files by their paths).
tsc -p node10/tsconfig.json
pass "types: compile({ checkpointer, store }) in commonjs + nodenext (static imports and await import(), both run; import type), module + nodenext, bundler, Deno; and module commonjs (node10)"

# --- The quick start ------------------------------------------------------------------
log "quickstart: the packed README's quick start, as written, in a fresh project"
dir=$(project quickstart)
# The project has what README's install line installs, nothing else.
node - "$README" "$dir/package.json" "$NAME" <<'JS'
const fs = require("node:fs");
const [readme, pkg, name] = process.argv.slice(2);
const text = fs.readFileSync(readme, "utf8");
const install = text.slice(text.indexOf("## Install")).match(/```sh\n(npm install [^\n]*)\n```/)?.[1];
if (!install) throw new Error("the packed README's Install section has no npm install line");
const named = install.split(/\s+/).slice(2).sort();
// run.sh's `npm install <tarball>` saved the package into the project's dependencies too.
const have = Object.keys(JSON.parse(fs.readFileSync(pkg, "utf8")).dependencies).sort();
if (!have.includes(name)) throw new Error(`the quickstart project does not have ${name}`);
if (JSON.stringify(named) !== JSON.stringify(have)) throw new Error(`README installs ${named}, the quickstart project has ${have}`);
JS
readme_block quickstart >"$dir/app.mjs"
quickstart() { (cd "$dir" && SUPABASE_URL="$SUPABASE_URL" SUPABASE_ANON_KEY="$SUPABASE_ANON_KEY" USER_TOKEN="$1" node app.mjs); }
token=$(new_user_jwt)
first=$(quickstart "$token")
second=$(quickstart "$token")
# What README says the first run prints, and the second: the same thread, at visit 2.
said=$(node -e 'const t = require("node:fs").readFileSync(process.argv[1], "utf8"); process.stdout.write(t.match(/The first run prints `([^`]*)`/)[1])' "$README")
[ "$first" = "$said" ] || die "quickstart, first run: $first (README says $said)"
node -e '
  const lines = process.argv[1];
  const want = `[\n  ${"\x27"}Hello${"\x27"},\n  ${"\x27"}You said "Hello" (visit 1)${"\x27"},\n  ${"\x27"}Hello${"\x27"},\n  ${"\x27"}You said "Hello" (visit 2)${"\x27"}\n]`;
  if (lines !== want) { console.error(`quickstart, second run:\n${lines}\nexpected:\n${want}`); process.exit(1); }' "$second"
# Another user's "my-first-thread" is another thread.
[ "$(quickstart "$(new_user_jwt)")" = "$said" ] || die "quickstart: a second user did not start a thread of their own"
pass "quickstart: the packed README's code runs as written (first run as README says; the thread and the store kept across runs; per user)"

# --- Bundlers -----------------------------------------------------------------------
log "esbuild and Vite in a \"type\": \"commonjs\" project"
dir=$(project bundlers)
esbuild="$dir/node_modules/.bin/esbuild"
chromium_ok() { # <dir> <page> <what>
  local out
  out=$(node "$HERE/bundlers/chromium.mjs" "$1" "$2")
  node -e '
    const r = JSON.parse(process.argv[1]);
    const ok = r.uuid5 === "886313e1-3b8a-5372-9b90-0c9aee199e5d" && JSON.stringify(r.data) === JSON.stringify([{ id: 1, label: "one" }, { id: 2, label: "two" }])
      && r.error?.agentmem === true && r.error.code === "invalid_input" && !r.failure && !r.loadError;
    if (!ok) { console.error(process.argv[2] + ": " + JSON.stringify(r, null, 2)); process.exit(1); }
    console.log(process.argv[2] + " in chromium " + r.chromium + ": uuid5 and select ok");' "$out" "$3"
}
# esbuild, as README.md says: bundle, then copy the .wasm next to the bundle.
(cd "$dir" && "$esbuild" src/main.mjs --bundle --format=esm --log-level=warning --outfile=dist/esbuild/bundle.js)
cp "$dir/esbuild.html" "$dir/dist/esbuild/index.html"
mkdir -p "$dir/dist/esbuild-nowasm" && cp "$dir"/dist/esbuild/{index.html,bundle.js} "$dir/dist/esbuild-nowasm/"
cp "$dir/node_modules/$NAME/agentmem_bg.wasm" "$dir/dist/esbuild/"
chromium_ok "$dir/dist/esbuild" index.html "esbuild bundle"
# Without the copy: an AgentmemError that says where it looked and what to do.
out=$(node "$HERE/bundlers/chromium.mjs" "$dir/dist/esbuild-nowasm" index.html)
node -e '
  const r = JSON.parse(process.argv[1]).loadError ?? {};
  if (r.name !== "AgentmemError" || r.code !== "wasm_not_loaded" || !/\/agentmem_bg\.wasm: /.test(r.message) || !r.message.includes("copy node_modules/" + process.argv[2] + "/agentmem_bg.wasm next to your bundle")) {
    console.error("esbuild bundle without its .wasm: " + process.argv[1]); process.exit(1);
  }
  console.log("esbuild bundle without its .wasm: " + r.code + ": " + r.message.slice(0, 110) + "...");' "$out" "$NAME"
pass "esbuild: bundle + copied .wasm in Chromium; without it, wasm_not_loaded naming the URL and the fix"
# For Deno: the deno condition (reads the .wasm from disk), .mjs entry and output.
(cd "$dir" && "$esbuild" src/deno.mjs --bundle --format=esm --platform=neutral --conditions=deno --log-level=warning --outfile=dist/deno/app.mjs)
cp "$dir/node_modules/$NAME/agentmem_bg.wasm" "$dir/dist/deno/"
(cd "$dir" && deno run --quiet --no-config --allow-read --allow-env --allow-net dist/deno/app.mjs)
# The pitfall README.md documents: a .js entry of a "type": "commonjs" project becomes a
# CommonJS wrapper with an await inside, which no runtime accepts.
(cd "$dir" && "$esbuild" src/cjs-trap.js --bundle --format=esm --platform=neutral --conditions=deno --log-level=error --outfile=dist/deno/trap.mjs)
if (cd "$dir" && deno run --quiet --no-config --allow-read --allow-env --allow-net dist/deno/trap.mjs 2>"$WORK/trap.err"); then
  die "the .js entry of a commonjs project bundled fine: update README.md (Bundlers)"
fi
grep -q "SyntaxError" "$WORK/trap.err" || { cat "$WORK/trap.err"; exit 1; }
# The fix README.md gives: the same file as .mjs (or "type": "module").
cp "$dir/src/cjs-trap.js" "$dir/src/cjs-trap.mjs"
(cd "$dir" && "$esbuild" src/cjs-trap.mjs --bundle --format=esm --platform=neutral --conditions=deno --log-level=error --outfile=dist/deno/fixed.mjs)
(cd "$dir" && deno run --quiet --no-config --allow-read dist/deno/fixed.mjs) | grep -q "bundle ok"
pass "esbuild for Deno: the deno condition runs; a .js entry of a commonjs project fails as README.md says, as .mjs it runs"

# Vite, with no configuration: the .wasm is an asset of the build; nothing to copy.
(cd "$dir" && node_modules/.bin/vite build --logLevel warn --outDir dist/vite >&2)
ls "$dir"/dist/vite/assets/*.wasm >/dev/null || die "vite build emitted no .wasm"
chromium_ok "$dir/dist/vite" index.html "vite build"
pass "vite: build (wasm emitted as an asset) in Chromium"
# Vite's dev server, with no configuration either (README.md: none is needed). The page
# reads the stack's settings from public/__env.json.
mkdir -p "$dir/public"
node -e 'const e = process.env; process.stdout.write(JSON.stringify({ SUPABASE_URL: e.SUPABASE_URL, SUPABASE_ANON_KEY: e.SUPABASE_ANON_KEY, AGENTMEM_USER_JWT: e.AGENTMEM_USER_JWT }))' >"$dir/public/__env.json"
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
(cd "$dir" && exec node_modules/.bin/vite --host 127.0.0.1 --port "$port" --strictPort --logLevel warn) >"$WORK/vite-dev.log" 2>&1 &
vite_pid=$!
for _ in $(seq 1 100); do curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break; sleep 0.2; done
chromium_ok "http://127.0.0.1:$port/index.html" "" "vite dev" || { cat "$WORK/vite-dev.log" >&2; kill "$vite_pid"; exit 1; }
kill "$vite_pid"
pass "vite: dev server, no configuration, in Chromium"

log "install matrix: ${#results[@]} passed"
printf '  %s\n' "${results[@]}" >&2

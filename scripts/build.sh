#!/usr/bin/env bash
# Builds the agentmem package into pkg/: two .wasm modules, each with its ES-module glue,
# and the facades from pkg-template/ (deno.js, node.js, browser.js, the ids-*.js entries,
# the .d.ts files, package.json).
#   agentmem_bg.wasm      the main entry (crate root): everything
#   agentmem_ids_bg.wasm  agentmem-supabase/ids (crates/ids-wasm): only the id helpers, so an app
#                         that needs nothing else downloads a fraction of the package
# Prints the sizes, raw and gzip, and fails when one is over its budget.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

profile=${1:---release}
rm -rf "$PKG"
# --target web: plain ESM glue with initSync/init, which every runtime can drive; the
# facades decide where the bytes come from.
log "wasm-pack build $profile (main module)"
wasm-pack --quiet build "$profile" --target web --no-typescript --no-pack \
  --out-dir "$PKG" --out-name agentmem
rm -f "$PKG/.gitignore" "$PKG/package.json" "$PKG/README.md"
# One edit to the generated glue. Async exports are polled in a microtask that
# wasm-bindgen-futures queues; a trap there (a panic is a bug, but it must cost one call,
# not the process) would escape as an uncaught exception, which ends a Node or Deno
# process. The edit catches exactly a WebAssembly.RuntimeError there, schedules the
# re-instantiation (the panic hook already did, unless the trap was not a panic) and
# rejects the calls in flight (io.js moduleFailed). The version of wasm-bindgen is
# pinned, and the build fails if the glue no longer has the expected line.
node - "$PKG/agentmem.js" <<'JS'
const fs = require("node:fs");
const file = process.argv[2];
const glue = fs.readFileSync(file, "utf8");
const line = /(__wbg_queueMicrotask_[0-9a-f]+: function\(arg0\) \{\n\s*)queueMicrotask\(arg0\);/g;
const found = glue.match(line) ?? [];
if (found.length !== 1 || !glue.includes("let __wbg_reinit_scheduled") || !/import \{[^}]*\bmoduleFailed\b[^}]*\} from '\.\/io\.js'/.test(glue)) {
  console.error(`build.sh: the wasm-bindgen glue changed (queueMicrotask shim found ${found.length} times); update the edit in scripts/build.sh`);
  process.exit(1);
}
fs.writeFileSync(file, glue.replace(line, "$1queueMicrotask(() => { try { arg0(); } catch (e) { if (!(e instanceof WebAssembly.RuntimeError)) throw e; __wbg_reinit_scheduled = true; moduleFailed(String(e.message)); } });"));
JS
log "wasm-pack build $profile (agentmem-supabase/ids module)"
# A directory of its own: wasm-pack runs wasm-opt over every .wasm in its --out-dir, and
# would optimise (and strip) the main module a second time with this crate's flags.
ids_out=$(mktemp -d)
trap 'rm -rf "$ids_out"' EXIT
wasm-pack --quiet build "$profile" --target web --no-typescript --no-pack \
  --out-dir "$ids_out" --out-name agentmem_ids crates/ids-wasm
mv "$ids_out/agentmem_ids_bg.wasm" "$ids_out/agentmem_ids.js" "$PKG/"
cp -R pkg-template/. "$PKG/"
# What users need besides the code: the license, the changelog, the README, and the SQL
# to apply to their project (bin/agentmem-sql.js copies or prints it).
cp LICENSE CHANGELOG.md README.md "$PKG/"
mkdir -p "$PKG/supabase"
cp -R supabase/migrations supabase/optional "$PKG/supabase/"

: >"$PKG/SIZE"
report() { # label, raw bytes, gzip bytes, budget in gzip bytes
  printf '%s: %d bytes raw, %d bytes gzip (budget %d)\n' "$1" "$2" "$3" "$4" | tee -a "$PKG/SIZE"
  if [ "$profile" = --release ] && [ "$3" -gt "$4" ]; then
    printf 'build.sh: %s is %d bytes gzip, over its budget of %d (scripts/build.sh)\n' "$1" "$3" "$4" >&2
    over=1
  fi
}
over=0
gz() { gzip -9 -c | wc -c; }


# Size budgets, so growth is a decision rather than an accident: raise one in the same
# commit that needs more, and say why.
# The main module (measured 2026-11-25: 429,318 raw / 175,356 gzip after the shared
# size-class allocator, serde_json's float code in place of core's, one async export for
# every operation, options read by src/input.rs instead of serde derives, JSON objects
# built by insertion rather than collect(), one map type (serde_json's), error
# properties set without serde, and wasm-opt's --converge and --low-memory-unused; being
# cut down towards the 150 KB goal for the whole package). Measured 2026-11-25 again:
# 403,322 raw / 168,329 gzip, after typed values written to JSON by hand instead of
# derive(Serialize), one export (callSync) for every synchronous function, one JSON
# writer (Display) for results, string_enum! lookups on a table of names, and value!
# instead of serde_json::json! (no serializer into Value).
wasm="$PKG/agentmem_bg.wasm"
report agentmem_bg.wasm "$(wc -c <"$wasm")" "$(gz <"$wasm")" "${AGENTMEM_WASM_GZIP_BUDGET:-169400}"
# agentmem-supabase/ids: everything an app that imports only the ids entry downloads, i.e. its
# .wasm plus all the JS the entry pulls in, gzipped as one file the way a bundle ships
# it. Unminified, so this bounds what any bundler produces (esbuild's minified bundle is
# ~2 KB smaller). The goal is 20 KB (measured 2026-11-24: 15,499 wasm + 4,621 JS). errors.js
# is shared with the main entry, so its growth counts here too.
ids_wasm="$PKG/agentmem_ids_bg.wasm"
ids_js=(agentmem_ids.js ids.js errors.js ids-browser.js)
ids_js_raw=$(cd "$PKG" && cat "${ids_js[@]}" | wc -c)
ids_js_gz=$(cd "$PKG" && cat "${ids_js[@]}" | gz)
printf 'agentmem_ids_bg.wasm: %d bytes raw, %d bytes gzip; its JS (%s): %d raw, %d gzip\n' \
  "$(wc -c <"$ids_wasm")" "$(gz <"$ids_wasm")" "${ids_js[*]}" "$ids_js_raw" "$ids_js_gz" | tee -a "$PKG/SIZE"
report "agentmem-supabase/ids download (wasm + JS)" "$(($(wc -c <"$ids_wasm") + ids_js_raw))" \
  "$(($(gz <"$ids_wasm") + ids_js_gz))" "${AGENTMEM_IDS_GZIP_BUDGET:-20480}"
exit "$over"

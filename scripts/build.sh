#!/usr/bin/env bash
# Builds the agentmem package into pkg/: one .wasm, one ES-module glue, and the facades
# from pkg-template/ (deno.js, node.js, browser.js, index.d.ts, package.json).
# Prints the .wasm size, raw and gzip.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

profile=${1:---release}
log "wasm-pack build $profile"
rm -rf "$PKG"
# --target web: plain ESM glue with initSync/init, which every runtime can drive; the
# facades decide where the bytes come from.
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
cp -R pkg-template/. "$PKG/"
# What users need besides the code: the license, the changelog, the README, and the SQL
# to apply to their project (bin/agentmem-sql.js copies or prints it).
cp LICENSE CHANGELOG.md README.md "$PKG/"
mkdir -p "$PKG/supabase"
cp -R supabase/migrations supabase/optional "$PKG/supabase/"

wasm="$PKG/agentmem_bg.wasm"
raw=$(wc -c <"$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
printf 'agentmem_bg.wasm: %d bytes raw, %d bytes gzip\n' "$raw" "$gz" | tee "$PKG/SIZE"

# A size budget, so growth is a decision rather than an accident: raise it in the same
# commit that needs more, and say why. (Measured 2026-11-24: 520,719 raw / 218,367 gzip,
# after the error wording of option, URL and missing-schema errors: +4.5 KB gzip.)
GZIP_BUDGET=${AGENTMEM_WASM_GZIP_BUDGET:-225000}
if [ "$profile" = --release ] && [ "$gz" -gt "$GZIP_BUDGET" ]; then
  printf 'build.sh: agentmem_bg.wasm is %d bytes gzip, over the budget of %d (scripts/build.sh)\n' "$gz" "$GZIP_BUDGET" >&2
  exit 1
fi

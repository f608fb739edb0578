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
mkdir -p "$PKG"

# Release builds abort at a panic itself (panic=immediate-abort): no panic messages,
# locations, formatting or hook are compiled in (~6 KB gzip of the main module, ~1 KB of
# the ids module). A panic is a bug; the trap it causes is caught in the glue (below).
# -Zlocation-detail=none: no source paths for #[track_caller] (~1 KB gzip).
# -Zfmt-debug=none: `{:?}` prints nothing, and no Debug impl or Unicode printable table is
# compiled in (~3 KB gzip). Messages quote with error::Quoted instead; a native test
# (error::tests::shipped_code_never_formats_with_debug) keeps Debug out of shipped code.
# The flag needs std rebuilt with it (rust-src, listed in rust-toolchain.toml), and both
# are unstable options: RUSTC_BOOTSTRAP lets the pinned stable toolchain accept them. std
# compiled at opt-level "z" with the rest is no bigger than the prebuilt one; the first
# build takes ~1 min longer, later ones reuse it from the target directory.
# A target directory of its own: these builds compile their host-side crates (proc macros)
# with RUSTC_BOOTSTRAP and their own flags, and sharing them with the gateway's release
# build made each dirty the other (the stack then rebuilt the gateway on every restart).
export CARGO_TARGET_DIR="$CARGO_TARGET_DIR-wasm"
cargo_flags=(--target wasm32-unknown-unknown --lib)
out_dir=debug
if [ "$profile" = --release ]; then
  cargo_flags+=(--release -Z build-std=std,panic_abort)
  out_dir=release
  export RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Csymbol-mangling-version=legacy -Zlocation-detail=none -Zfmt-debug=none"
fi

# One module: cargo builds it, wasm-bindgen writes its ES-module glue (--target web: plain
# ESM with initSync/init, which every runtime can drive; the facades decide where the
# bytes come from), wasm-opt shrinks it (release). wasm-bindgen's reset-state machinery
# (the instance is replaced before the next call once the glue sets
# __wbg_reinit_scheduled) is what the trap guard below relies on.
build_module() { # package, cargo lib name, out name, wasm-opt flags...
  local package=$1 lib=$2 name=$3; shift 3
  log "cargo build $profile -p $package"
  nice cargo build --quiet -p "$package" "${cargo_flags[@]}"
  wasm-bindgen --target web --no-typescript --experimental-reset-state-function \
    --out-dir "$PKG" --out-name "$name" "$CARGO_TARGET_DIR/wasm32-unknown-unknown/$out_dir/$lib.wasm"
  if [ "$profile" = --release ]; then
    wasm-opt "$@" "$PKG/${name}_bg.wasm" -o "$PKG/${name}_bg.wasm"
  fi
}
# --converge: repeat -Oz until it stops shrinking (~600 bytes gzip).
# --low-memory-unused: lets binaryen fold constant offsets into loads and stores; true of
# every Rust module, whose stack sits below 1 MB and whose data and heap above it.
# The producers and target-features sections are notes for tools, not for the runtime.
build_module agentmem-supabase agentmem agentmem \
  -Oz --converge --low-memory-unused --strip-producers --strip-target-features
# agentmem-supabase/ids (crates/ids-wasm): only the id helpers, so an app that needs
# nothing else downloads a fraction of the package.
build_module agentmem-ids agentmem_ids agentmem_ids -Oz --strip-producers --strip-target-features

# Edits to the generated glue, which the build checks are still possible (the version of
# wasm-bindgen is pinned; the build fails if the glue no longer has the expected lines):
# - Trap guard: every export of the instance is wrapped so that a WebAssembly.RuntimeError
#   leaving the module (a panic, which aborts on the spot, or any other trap) marks the
#   instance for re-instantiation before the next call, logs it, and, in the main module,
#   rejects the calls in flight on the discarded instance (io.js moduleFailed). A long-lived
#   edge worker loses one call to a bug, not the whole worker.
# - Async exports are polled in a microtask that wasm-bindgen-futures queues; a trap there
#   would escape as an uncaught exception, which ends a Node or Deno process. The main glue
#   swallows exactly a WebAssembly.RuntimeError there (the guard has handled it).
node - "$PKG/agentmem.js" "$PKG/agentmem_ids.js" <<'JS'
const fs = require("node:fs");
const fail = (why) => {
  console.error(`build.sh: the wasm-bindgen glue changed (${why}); update the edits in scripts/build.sh`);
  process.exit(1);
};
for (const [i, file] of process.argv.slice(2).entries()) {
  const main = i === 0;
  let glue = fs.readFileSync(file, "utf8");
  const assignments = glue.match(/\bwasm = (wasmInstance|instance)\.exports;/g) ?? [];
  if (assignments.length !== 2 || !glue.includes("let __wbg_reinit_scheduled")) fail(`${file}: instance assignments ${assignments.length}`);
  glue = glue.replace(/\bwasm = (wasmInstance|instance)\.exports;/g, "wasm = __agentmemGuardTraps($1.exports);");
  const trapped = main
    ? `console.error(\`agentmem: internal error, the module will reinitialize on the next call: \${e.message}\`); moduleFailed(String(e.message));`
    : `console.error("agentmem/ids: internal error, the module will reinitialize on the next call");`;
  glue += `
// Added by scripts/build.sh: a trap leaving the module schedules a fresh instance.
function __agentmemGuardTraps(exports) {
    const guarded = {};
    for (const [name, value] of Object.entries(exports)) {
        guarded[name] = typeof value !== "function" ? value : function () {
            try {
                return value.apply(this, arguments);
            } catch (e) {
                if (e instanceof WebAssembly.RuntimeError && !__wbg_reinit_scheduled) {
                    __wbg_reinit_scheduled = true;
                    ${trapped}
                }
                throw e;
            }
        };
    }
    return guarded;
}
`;
  if (main) {
    const line = /(__wbg_queueMicrotask_[0-9a-f]+: function\(arg0\) \{\n\s*)queueMicrotask\(arg0\);/g;
    const found = glue.match(line) ?? [];
    if (found.length !== 1) fail(`queueMicrotask shim found ${found.length} times`);
    glue = glue.replace(line, "$1queueMicrotask(() => { try { arg0(); } catch (e) { if (!(e instanceof WebAssembly.RuntimeError)) throw e; } });");
    glue = `import { moduleFailed } from './io.js';\n${glue}`;
  }
  fs.writeFileSync(file, glue);
}
JS
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
# instead of serde_json::json! (no serializer into Value). 2026-11-25: 384,164 raw /
# 161,535 gzip with panic=immediate-abort and std rebuilt at opt-level "z"; 377,599 /
# 157,152 without Debug formatting and #[track_caller] locations; 353,276 / 144,446 with
# JSON numbers kept as text (no float parser) and JSON read by src/json.rs; 351,168 /
# 143,616 with JSON written by src/json.rs too (no serde serializer).
wasm="$PKG/agentmem_bg.wasm"
report agentmem_bg.wasm "$(wc -c <"$wasm")" "$(gz <"$wasm")" "${AGENTMEM_WASM_GZIP_BUDGET:-144200}"
# agentmem-supabase/ids: everything an app that imports only the ids entry downloads, i.e. its
# .wasm plus all the JS the entry pulls in, gzipped as one file the way a bundle ships
# it. Unminified, so this bounds what any bundler produces (esbuild's minified bundle is
# ~2 KB smaller). The goal is 20 KB (measured 2026-11-24: 15,499 wasm + 4,621 JS;
# 2026-11-25: 13,254 + 4,952 with panic=immediate-abort and the trap guard). errors.js
# is shared with the main entry, so its growth counts here too.
ids_wasm="$PKG/agentmem_ids_bg.wasm"
ids_js=(agentmem_ids.js ids.js errors.js ids-browser.js)
ids_js_raw=$(cd "$PKG" && cat "${ids_js[@]}" | wc -c)
ids_js_gz=$(cd "$PKG" && cat "${ids_js[@]}" | gz)
printf 'agentmem_ids_bg.wasm: %d bytes raw, %d bytes gzip; its JS (%s): %d raw, %d gzip\n' \
  "$(wc -c <"$ids_wasm")" "$(gz <"$ids_wasm")" "${ids_js[*]}" "$ids_js_raw" "$ids_js_gz" | tee -a "$PKG/SIZE"
report "agentmem-supabase/ids download (wasm + JS)" "$(($(wc -c <"$ids_wasm") + ids_js_raw))" \
  "$(($(gz <"$ids_wasm") + ids_js_gz))" "${AGENTMEM_IDS_GZIP_BUDGET:-19000}"

# --- One module for the main entry's JavaScript (scripts/bundle.mjs) ----------------------
# Kept a block of its own, last: it only rewrites pkg/'s JavaScript (core.js joins the
# internal modules; the entries and the internal files point at it; pkg/unbundled/ keeps
# the JavaScript as it was, for tests/facades/check.sh). Importing the main entry in Deno
# loads 3 modules instead of 11.
log "bundle the JavaScript (scripts/bundle.mjs)"
node "$ROOT/scripts/bundle.mjs" "$PKG"
exit "$over"

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

# Two routes to a release build, the same behaviour; build.sh says which it took and why.
#  pinned (the default): the toolchain of rust-toolchain.toml with unstable options that
#    make the module smaller. RUSTC_BOOTSTRAP lets that stable toolchain accept them:
#    -Cpanic=immediate-abort  a panic aborts on the spot: no panic messages, locations,
#                             formatting or hook are compiled in. A panic is a bug; the
#                             trap it causes is caught where JavaScript called in
#                             (pkg-template/wasm.js, ids.js).
#    -Zlocation-detail=none   no source paths for #[track_caller].
#    -Zfmt-debug=none         `{:?}` prints nothing, so no Debug impl or Unicode printable
#                             table is compiled in. Messages quote with error::Quoted
#                             instead; a native test
#                             (error::tests::shipped_code_never_formats_with_debug) keeps
#                             Debug out of shipped code.
#    -Zbuild-std              std recompiled with those flags at opt-level "z" (needs the
#                             rust-src component, which scripts/bootstrap.sh adds; the
#                             first build takes ~1 min longer, later ones reuse it).
#    The size budgets below hold for this route.
#  stable: no -Z flag and no RUSTC_BOOTSTRAP, the prebuilt std with panic=abort. Larger,
#    same behaviour. Taken when the toolchain refuses the pinned route's options (unstable
#    options are renamed or removed without notice), or when AGENTMEM_BUILD_ROUTE=stable
#    asks for it (scripts/test.sh builds and smoke-tests it in CI, so it stays working).
# Each route has a target directory of its own: they compile their host-side crates (proc
# macros) with different flags, and sharing them with the gateway's release build or each
# other made each dirty the other (the stack then rebuilt the gateway on every restart).
cargo_flags=(--target wasm32-unknown-unknown --lib)
out_dir=debug
route=debug
if [ "$profile" = --release ]; then
  out_dir=release
  cargo_flags+=(--release)
  pinned_flags="-Zunstable-options -Cpanic=immediate-abort -Csymbol-mangling-version=legacy -Zlocation-detail=none -Zfmt-debug=none"
  route=${AGENTMEM_BUILD_ROUTE:-pinned}
  case "$route" in
    pinned)
      # Asked of the compiler itself, on an empty crate, before anything is built.
      if [ ! -f "$(rustc --print sysroot)/lib/rustlib/src/rust/library/Cargo.lock" ]; then
        why="the rust-src component is missing (scripts/bootstrap.sh adds it)"
      elif ! probe_dir=$(mktemp -d) || ! probe=$(echo "" | RUSTC_BOOTSTRAP=1 rustc $pinned_flags --crate-type lib \
                       --crate-name probe --target wasm32-unknown-unknown --emit metadata --out-dir "$probe_dir" - 2>&1); then
        why="$(rustc --version) refuses its options: $(head -1 <<<"$probe")"
      fi
      rm -rf "${probe_dir:-}"
      if [ -n "${why:-}" ]; then
        log "release build: the stable route, because $why; the module is larger than the pinned route's and its size budget is not checked"
        route=stable
      fi
      ;;
    stable) log "release build: the stable route, because AGENTMEM_BUILD_ROUTE=stable" ;;
    *) echo "build.sh: AGENTMEM_BUILD_ROUTE must be pinned or stable, got \"$route\"" >&2; exit 1 ;;
  esac
  if [ "$route" = pinned ]; then
    log "release build: the pinned route ($(rustc --version), unstable size options, std rebuilt)"
    cargo_flags+=(-Z build-std=std,panic_abort)
    export RUSTC_BOOTSTRAP=1 RUSTFLAGS="$pinned_flags"
  else
    unset RUSTC_BOOTSTRAP RUSTFLAGS
  fi
fi
if [ "$route" = pinned ]; then export CARGO_TARGET_DIR="$CARGO_TARGET_DIR-wasm"; else export CARGO_TARGET_DIR="$CARGO_TARGET_DIR-wasm-$route"; fi

# One module: cargo builds it, wasm-bindgen writes its ES-module glue (--target web: plain
# ESM with initSync/init, which every runtime can drive; the facades decide where the
# bytes come from), wasm-opt shrinks it (release). The glue is used as generated (but for
# the TextDecoder patch scripts/bundle.mjs applies and docs/design.md states); its
# __wbg_reset_state (--experimental-reset-state-function) is what pkg-template/wasm.js and
# ids.js call for a fresh instance after a trap.
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
# --converge: repeat -Oz until a pass no longer shrinks the module (one pass's inlining
# and folding leave work for the next).
# --low-memory-unused: lets binaryen fold constant offsets into loads and stores; true of
# every Rust module, whose stack sits below 1 MB and whose data and heap above it.
# The producers and target-features sections are notes for tools, not for the runtime.
build_module agentmem-supabase agentmem agentmem \
  -Oz --converge --low-memory-unused --strip-producers --strip-target-features
# agentmem-supabase/ids (crates/ids-wasm): only the id helpers, so an app that needs
# nothing else downloads a fraction of the package.
build_module agentmem-ids agentmem_ids agentmem_ids -Oz --strip-producers --strip-target-features

cp -R pkg-template/. "$PKG/"
# The CommonJS declarations (x.d.cts), generated from the .d.ts files: the `require` side of
# the exports map's "types" (scripts/declarations.mjs says why).
node "$ROOT/scripts/declarations.mjs" "$PKG"
# What users need besides the code: the license, the changelog, the README (the package's
# own, pkg-template/README.md, copied above: the repository's README is for contributors
# and names files the package does not have), and the SQL to apply to their project
# (bin/agentmem-sql.js copies or prints it).
cp LICENSE CHANGELOG.md "$PKG/"
mkdir -p "$PKG/supabase/functions"
cp -R supabase/migrations supabase/optional "$PKG/supabase/"
# The example Edge Functions, as README tells users to copy them: their import maps point
# at a copy of this package in the function's ./agentmem/ folder (here: at the build output).
for f in _shared memory-tools langgraph-agent langgraph-store; do cp -R "supabase/functions/$f" "$PKG/supabase/functions/"; done
sed -i 's#"\.\./\.\./\.\./pkg/#"./agentmem/#g' "$PKG"/supabase/functions/*/deno.json

echo "build: the $route route" | tee "$PKG/SIZE"
report() { # label, raw bytes, gzip bytes, budget in gzip bytes
  local budget="budget $4"
  [ "$route" = pinned ] || budget="no budget on the $route route"
  printf '%s: %d bytes raw, %d bytes gzip (%s)\n' "$1" "$2" "$3" "$budget" | tee -a "$PKG/SIZE"
  if [ "$route" = pinned ] && [ "$3" -gt "$4" ]; then
    printf 'build.sh: %s is %d bytes gzip, over its budget of %d (scripts/build.sh)\n' "$1" "$3" "$4" >&2
    over=1
  fi
}
over=0
gz() { gzip -9 -c | wc -c; }


# Size budgets (gzip), so growth is a decision rather than an accident: raise one in the
# same commit that needs more, and say why in its message (the history of the sizes is in
# git, not here). They hold for the pinned route; the stable route reports its sizes
# without a budget.
wasm="$PKG/agentmem_bg.wasm"
report agentmem_bg.wasm "$(wc -c <"$wasm")" "$(gz <"$wasm")" "${AGENTMEM_WASM_GZIP_BUDGET:-147700}"
# agentmem-supabase/ids: everything an app that imports only the ids entry downloads, i.e. its
# .wasm plus all the JS the entry pulls in, gzipped as one file the way a bundle ships
# it. Unminified, so this bounds what any bundler produces. errors.js is shared with the
# main entry, so its growth counts here too. The goal is to stay under 20 KB.
ids_wasm="$PKG/agentmem_ids_bg.wasm"
ids_js=(agentmem_ids.js ids.js errors.js ids-browser.js)
ids_js_raw=$(cd "$PKG" && cat "${ids_js[@]}" | wc -c)
ids_js_gz=$(cd "$PKG" && cat "${ids_js[@]}" | gz)
printf 'agentmem_ids_bg.wasm: %d bytes raw, %d bytes gzip; its JS (%s): %d raw, %d gzip\n' \
  "$(wc -c <"$ids_wasm")" "$(gz <"$ids_wasm")" "${ids_js[*]}" "$ids_js_raw" "$ids_js_gz" | tee -a "$PKG/SIZE"
report "agentmem-supabase/ids download (wasm + JS)" "$(($(wc -c <"$ids_wasm") + ids_js_raw))" \
  "$(($(gz <"$ids_wasm") + ids_js_gz))" "${AGENTMEM_IDS_GZIP_BUDGET:-19700}"

# --- One module for the main entry's JavaScript (scripts/bundle.mjs) ----------------------
# Kept a block of its own, last: it only rewrites pkg/'s JavaScript (core.js joins the
# internal modules; the entries and the internal files point at it; pkg/unbundled/ keeps
# the JavaScript as it was, for tests/facades/check.sh). Importing the main entry in Deno
# loads 3 modules instead of 12.
log "bundle the JavaScript (scripts/bundle.mjs)"
node "$ROOT/scripts/bundle.mjs" "$PKG"
# The inspector's first load (pkg/inspector: HTML, CSS, its modules and the .wasm, gzip).
# The main module is most of it and has a budget of its own; this one bounds the page around it.
if [ "$route" = pinned ]; then
  node "$ROOT/scripts/inspector-size.mjs" "$PKG" "${AGENTMEM_INSPECTOR_GZIP_BUDGET:-200800}" | tee -a "$PKG/SIZE"
  [ "${PIPESTATUS[0]}" = 0 ] || over=1
fi
exit "$over"

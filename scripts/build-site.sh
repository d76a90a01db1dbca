#!/usr/bin/env bash
# Builds the static site into site/dist: the wasm modules (scripts/build-wasm.sh) and the package's
# components must be built first; this bundles the lessons, KaTeX and the .wasm files with Vite.
set -euo pipefail
cd "$(dirname "$0")/.."
node node_modules/vite/bin/vite.js build --config site/vite.config.js --logLevel warn

#!/usr/bin/env bash
# Builds the static site into site/dist: the wasm modules (scripts/build-wasm.sh) and the package's
# components must be built first; this bundles the lessons, KaTeX and the .wasm files with Vite, then
# writes the npm package's API reference (TypeDoc, from web/index.d.ts and web/components.d.ts) into
# site/dist/api/ and the C++ library's (Doxygen, from cpp/include's comments: site/Doxyfile) into
# site/dist/api/cpp/ (after Vite, which empties site/dist).
set -euo pipefail
cd "$(dirname "$0")/.."
node node_modules/vite/bin/vite.js build --config site/vite.config.js --logLevel warn
node node_modules/typedoc/bin/typedoc --options site/typedoc.json --logLevel Warn
mkdir -p site/dist/api/cpp
doxygen site/Doxyfile

#!/usr/bin/env bash
# Bundles the web components (web/components/) into web/dist/components.js with Vite's library mode.
set -euo pipefail
cd "$(dirname "$0")/.."
node node_modules/vite/bin/vite.js build --config web/vite.components.config.js
ls -l web/dist/components.js

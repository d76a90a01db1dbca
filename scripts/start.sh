#!/usr/bin/env bash
# The main thing: installs what is missing, builds the wasm modules, the components and the site,
# then serves the site on localhost and prints its URL (PORT=8080 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build-wasm.sh >/dev/null
scripts/build-components.sh
scripts/build-site.sh
exec node scripts/serve-site.mjs

#!/usr/bin/env bash
# The main thing: installs what is missing, builds the wasm modules, the components and the site,
# then serves the site on localhost and prints its URL (PORT=8080 by default). Each stage says what
# it does as it starts (the wasm build with its own progress, which on a fresh machine is most of the
# wait) and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
stage() {
  local name=$1
  shift
  local t0=$SECONDS
  echo "== $name =="
  "$@"
  echo "   ($name: $((SECONDS - t0)) s)"
}
stage "installing what is missing (apt-get, npm ci)" scripts/install-deps.sh
stage "building the wasm modules (SIMD, scalar, threaded: several minutes on a fresh machine)" scripts/build-wasm.sh
stage "bundling the web components" scripts/build-components.sh
stage "building the site" scripts/build-site.sh
echo "Built in $((SECONDS - started)) s. Serving the site:"
exec node scripts/serve-site.mjs

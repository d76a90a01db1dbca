// The core's include rule (cpp/src/README.md): every include points down the subsystem layers.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { checkLayers } from '../../scripts/check-layers.mjs';

const repository = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'attnlab-layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  mkdirSync(join(root, 'cpp/include/attnlab'), { recursive: true });
  return root;
}

test('the repository core includes only downward', () => {
  assert.deepEqual(checkLayers(repository), []);
});

test('an upward include, a flat path and an unknown folder are each reported with file and line', () => {
  const root = tree({
    'cpp/src/attention/softmax.cpp': '#include "attnlab/attention/softmax.hpp"\n#include "tensor/checks.hpp"\n',
    'cpp/src/tensor/rng.cpp': '#include <cmath>\n#include "attnlab/gpt/gpt.hpp"\n',
    'cpp/include/attnlab/layers/linear.hpp': '#include "attnlab/matrix.hpp"\n',
    'cpp/src/misc/x.cpp': '#include "tensor/checks.hpp"\n',
    'cpp/src/kernels/dispatch.cpp': '#include "kernels.hpp"\n#include "tensor/parallel.hpp"\n',
  });
  try {
    assert.deepEqual(checkLayers(root), [
      'cpp/src/misc/x.cpp: "misc" is not a subsystem (scripts/check-layers.mjs lists them)',
      'cpp/src/tensor/rng.cpp:2: tensor includes "attnlab/gpt/gpt.hpp" from gpt, above it (tensor may include nothing else)',
      'cpp/include/attnlab/layers/linear.hpp:1: includes "attnlab/matrix.hpp", a flat path; headers live in attnlab/<subsystem>/',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

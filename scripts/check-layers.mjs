#!/usr/bin/env node
// The core's include rule, checked: every file under cpp/src/<subsystem>/ and
// cpp/include/attnlab/<subsystem>/ includes only its own subsystem and those below it
// (cpp/src/README.md draws the picture). An upward include, a flat "attnlab/x.hpp" path or an
// unknown subsystem is reported with file and line, and the exit status is 1.
//   node scripts/check-layers.mjs [ROOT]      ROOT defaults to the repository
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// What each subsystem may include besides itself. Arrows point down:
// tensor ← kernels ← attention ← layers ← training ← gpt, referent, seq2seq; gpt ← llama; both ← interp
// (experiments on the GPT and the Llama); text and io stand beside on tensor.
export const MAY_INCLUDE = {
  tensor: [],
  kernels: ['tensor'],
  text: ['tensor'],
  io: ['tensor'],
  attention: ['tensor', 'kernels'],
  layers: ['tensor', 'kernels', 'attention'],
  training: ['tensor', 'kernels', 'attention', 'layers'],
  gpt: ['tensor', 'kernels', 'attention', 'layers', 'training', 'io', 'text'],
  referent: ['tensor', 'kernels', 'attention', 'layers', 'training', 'io'],
  seq2seq: ['tensor', 'kernels', 'attention', 'layers', 'training', 'io', 'text'],
  // The Llama family builds on the GPT's sampling and generation (gpt_session.hpp).
  llama: ['tensor', 'kernels', 'attention', 'layers', 'training', 'io', 'text', 'gpt'],
  interp: ['tensor', 'kernels', 'attention', 'layers', 'training', 'io', 'text', 'gpt', 'llama'],
};

function* sourceFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(cpp|hpp|inl)$/.test(name)) yield path;
  }
}

// The subsystem an include names: "attnlab/gpt/gpt.hpp" → gpt, "tensor/checks.hpp" → tensor;
// null for a file beside the includer ("kernels.hpp") and for system headers.
function includedSubsystem(target) {
  const parts = target.split('/');
  if (parts[0] === 'attnlab') return parts.length === 3 ? parts[1] : { flat: true };
  return parts.length === 2 ? parts[0] : null;
}

export function checkLayers(root) {
  const problems = [];
  for (const base of ['cpp/src', 'cpp/include/attnlab']) {
    for (const file of sourceFiles(join(root, base))) {
      const inside = relative(join(root, base), file).split('/');
      if (inside.length === 1) continue;  // attnlab.hpp, the umbrella, includes every subsystem
      const own = inside[0];
      const allowed = MAY_INCLUDE[own];
      const where = relative(root, file);
      if (!allowed) {
        problems.push(`${where}: "${own}" is not a subsystem (scripts/check-layers.mjs lists them)`);
        continue;
      }
      readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
        const match = /^\s*#\s*include\s+"([^"]+)"/.exec(line);
        if (!match) return;
        const target = includedSubsystem(match[1]);
        if (target === null || target === own) return;
        if (typeof target === 'object') {
          problems.push(`${where}:${index + 1}: includes "${match[1]}", a flat path; headers live in attnlab/<subsystem>/`);
        } else if (!MAY_INCLUDE[target]) {
          problems.push(`${where}:${index + 1}: includes "${match[1]}" from "${target}", which is not a subsystem`);
        } else if (!allowed.includes(target)) {
          problems.push(`${where}:${index + 1}: ${own} includes "${match[1]}" from ${target}, above it ` +
                        `(${own} may include ${allowed.length ? allowed.join(', ') : 'nothing else'})`);
        }
      });
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? join(fileURLToPath(new URL('.', import.meta.url)), '..');
  const problems = checkLayers(root);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log('every include in cpp/src and cpp/include/attnlab points down');
}

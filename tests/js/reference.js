// Independent double-precision references for the fuzz test, written from the formulas (the paper or
// PyTorch's definition), never from the package's code. Matrices are { rows, cols, data } with data
// any array of numbers; results carry a Float64Array.

const matrix = (rows, cols, fill = 0) => ({ rows, cols, data: new Float64Array(rows * cols).fill(fill) });
const get = (m, r, c) => m.data[r * m.cols + c];

// y = x·Wᵀ + b (nn.Linear): x n×in, weight out×in, bias out (or absent).
export function linear(x, weight, bias) {
  const y = matrix(x.rows, weight.rows);
  for (let r = 0; r < x.rows; r++) {
    for (let o = 0; o < weight.rows; o++) {
      let sum = bias ? bias[o] : 0;
      for (let i = 0; i < x.cols; i++) sum += get(x, r, i) * get(weight, o, i);
      y.data[r * y.cols + o] = sum;
    }
  }
  return y;
}

// Row-wise softmax; −Infinity is a blocked entry, and a row with every entry blocked is all 0.
export function softmax(m) {
  const out = matrix(m.rows, m.cols);
  for (let r = 0; r < m.rows; r++) {
    let max = -Infinity;
    for (let c = 0; c < m.cols; c++) max = Math.max(max, get(m, r, c));
    if (max === -Infinity) continue;
    let sum = 0;
    for (let c = 0; c < m.cols; c++) sum += Math.exp(get(m, r, c) - max);
    for (let c = 0; c < m.cols; c++) out.data[r * m.cols + c] = Math.exp(get(m, r, c) - max) / sum;
  }
  return out;
}

// torch.tril(torch.ones(n_q, n_k), diagonal = n_k − n_q): query i sits at position i + n_k − n_q.
export function causalMask(rows, cols) {
  const m = matrix(rows, cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) m.data[i * cols + j] = j <= i + cols - rows ? 1 : 0;
  return m;
}

export function keyPaddingMask(rows, cols, validLength) {
  const m = matrix(rows, cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < validLength; j++) m.data[i * cols + j] = 1;
  return m;
}

// softmax(scale·QKᵀ with blocked entries at −∞)·V, scale defaulting to 1/√d_k. `magnitudes` holds
// Σ_t |q_it·k_jt|, which float32 rounding errors of the score (i, j) are proportional to.
export function attention(q, k, v, { mask, causal = false, scale } = {}) {
  const s = scale ?? 1 / Math.sqrt(q.cols);
  const scores = matrix(q.rows, k.rows);
  const magnitudes = matrix(q.rows, k.rows);
  const masked = matrix(q.rows, k.rows);
  for (let i = 0; i < q.rows; i++) {
    for (let j = 0; j < k.rows; j++) {
      let dot = 0;
      let magnitude = 0;
      for (let t = 0; t < q.cols; t++) {
        dot += get(q, i, t) * get(k, j, t);
        magnitude += Math.abs(get(q, i, t) * get(k, j, t));
      }
      magnitudes.data[i * k.rows + j] = magnitude;
      scores.data[i * k.rows + j] = dot;
      const blocked = (mask && get(mask, i, j) === 0) || (causal && j > i + k.rows - q.rows);
      masked.data[i * k.rows + j] = blocked ? -Infinity : dot * s;
    }
  }
  const weights = softmax(masked);
  const output = matrix(q.rows, v.cols);
  for (let i = 0; i < q.rows; i++) {
    for (let c = 0; c < v.cols; c++) {
      let sum = 0;
      for (let j = 0; j < k.rows; j++) sum += get(weights, i, j) * get(v, j, c);
      output.data[i * v.cols + c] = sum;
    }
  }
  return { scale: s, scores, magnitudes, masked, weights, output };
}

// nn.MultiheadAttention: in_proj rows are W_q, W_k, W_v; each head attends over its d_k columns;
// the heads' outputs are concatenated and projected by out_proj. averageWeights is their mean.
export function multiHeadAttention(query, key, value, w, numHeads, options) {
  const d = query.cols;
  const dk = d / numHeads;
  const rows = (m, from, count) => ({ rows: count, cols: m.cols, data: Array.from(m.data).slice(from * m.cols, (from + count) * m.cols) });
  const part = (b, i) => (b ? Array.from(b).slice(i * d, (i + 1) * d) : undefined);
  const q = linear(query, rows(w.inProjWeight, 0, d), part(w.inProjBias, 0));
  const k = linear(key, rows(w.inProjWeight, d, d), part(w.inProjBias, 1));
  const v = linear(value, rows(w.inProjWeight, 2 * d, d), part(w.inProjBias, 2));
  const columns = (m, h) => {
    const out = matrix(m.rows, dk);
    for (let r = 0; r < m.rows; r++) for (let c = 0; c < dk; c++) out.data[r * dk + c] = get(m, r, h * dk + c);
    return out;
  };
  const concat = matrix(query.rows, d);
  const weights = [];
  const averageWeights = matrix(query.rows, key.rows);
  let maxMagnitude = 0;  // the largest scale·Σ|q·k| of any head: what rounding errors of the scores scale with
  for (let h = 0; h < numHeads; h++) {
    const head = attention(columns(q, h), columns(k, h), columns(v, h), options);
    weights.push(head.weights);
    maxMagnitude = Math.max(maxMagnitude, ...head.magnitudes.data.map((x) => x * head.scale));
    for (let i = 0; i < averageWeights.data.length; i++) averageWeights.data[i] += head.weights.data[i] / numHeads;
    for (let r = 0; r < query.rows; r++) for (let c = 0; c < dk; c++) concat.data[r * d + h * dk + c] = get(head.output, r, c);
  }
  return { output: linear(concat, w.outProjWeight, w.outProjBias), weights, averageWeights, dModel: d, maxMagnitude };
}

// Vaswani et al. 2017: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d)).
export function sinusoidalEncoding(seqLen, dModel) {
  const pe = matrix(seqLen, dModel);
  for (let p = 0; p < seqLen; p++) {
    for (let c = 0; c < dModel; c++) {
      const angle = p / 10000 ** ((2 * Math.floor(c / 2)) / dModel);
      pe.data[p * dModel + c] = c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }
  }
  return pe;
}

// RoFormer (Su et al. 2021), interleaved pairs: (x_2i, x_2i+1) of the token at position p rotated by
// p·10000^(−2i/d).
export function rotary(x, offset) {
  const out = matrix(x.rows, x.cols);
  for (let r = 0; r < x.rows; r++) {
    for (let i = 0; 2 * i < x.cols; i++) {
      const angle = (r + offset) * 10000 ** ((-2 * i) / x.cols);
      const [a, b] = [get(x, r, 2 * i), get(x, r, 2 * i + 1)];
      out.data[r * x.cols + 2 * i] = a * Math.cos(angle) - b * Math.sin(angle);
      out.data[r * x.cols + 2 * i + 1] = a * Math.sin(angle) + b * Math.cos(angle);
    }
  }
  return out;
}

// ALiBi (Press et al. 2022), get_slopes: for n a power of two, 2^(−8/n)^(h+1); otherwise the slopes of
// the largest power of two below n, then every other slope of the next power of two.
export function alibiSlopes(n) {
  const powerOfTwo = (m) => Array.from({ length: m }, (_, h) => (2 ** (-8 / m)) ** (h + 1));
  if (Number.isInteger(Math.log2(n))) return powerOfTwo(n);
  const closest = 2 ** Math.floor(Math.log2(n));
  return [...powerOfTwo(closest), ...alibiSlopes(2 * closest).filter((_, i) => i % 2 === 0).slice(0, n - closest)];
}

// bias(i, j) = −slope·|position of query i − j|, queries aligned to the last keys.
export function alibiBias(rows, cols, slope) {
  const m = matrix(rows, cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) m.data[i * cols + j] = -slope * Math.abs(i + cols - rows - j);
  return m;
}

// What the wasm side receives for a JS string: lone surrogates replaced by U+FFFD (as TextEncoder does).
export const wellFormed = (text) => text.replace(/\p{Cs}/gu, '\uFFFD');

// Word-level tokens: runs of ASCII letters, digits and any non-ASCII character, ASCII-lower-cased; an
// apostrophe between word characters stays inside the word; other characters are tokens of their
// own except whitespace (space, \t, \n, \r, \f, \v), which separates.
export function tokenize(text) {
  const chars = Array.from(wellFormed(text));
  const isWord = (ch) => ch !== undefined && (/[A-Za-z0-9]/.test(ch) || ch.codePointAt(0) >= 0x80);
  const tokens = [];
  let word = '';
  const digit = (ch) => ch !== undefined && /^[0-9]$/.test(ch);
  const letter = (ch) => ch !== undefined && /^[A-Za-z]$/.test(ch);
  // A '.' or ',' stays in the word between two digits (3.14, 1,000); a '.' after a lone letter stays
  // when another "letter." follows or the word is already such an abbreviation (u.s.a., e.g.).
  const keepsPunctuation = (ch, i) => {
    if (word === '' || (ch !== '.' && ch !== ',')) return false;
    const last = word.at(-1);
    if (digit(last) && digit(chars[i + 1])) return true;
    if (ch !== '.') return false;
    const lone = letter(last) && (word.length === 1 || word.at(-2) === '.');
    return lone && ((letter(chars[i + 1]) && chars[i + 2] === '.') || word.includes('.'));
  };
  chars.forEach((ch, i) => {
    if (isWord(ch) || (ch === "'" && word !== '' && isWord(chars[i + 1])) || keepsPunctuation(ch, i)) {
      word += /[A-Z]/.test(ch) ? ch.toLowerCase() : ch;
      return;
    }
    if (word !== '') tokens.push(word);
    word = '';
    if (!' \t\n\r\f\v'.includes(ch)) tokens.push(ch);
  });
  if (word !== '') tokens.push(word);
  return tokens;
}

import { init } from 'attnlab';

const lab = await init();
const tokens = lab.tokenize('the cat sat on the mat');
const x = lab.embedTokens(tokens, 8, { seed: 1 });       // one row of 8 numbers per token
const { weights } = lab.scaledDotProductAttention(x, x, x, { causal: true });
for (let row = 0; row < weights.rows; row++) {
  const cells = [...weights.data.subarray(row * weights.cols, (row + 1) * weights.cols)];
  console.log(tokens[row].padEnd(4), cells.map((w) => w.toFixed(2)).join(' '));
}

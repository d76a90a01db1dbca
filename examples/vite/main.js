import { init } from 'attnlab';
import 'attnlab/components';

const lab = await init();
const tokens = lab.tokenize('the cat sat on the mat');
const x = lab.embedTokens(tokens, 8, { seed: 1 });
const { weights } = lab.scaledDotProductAttention(x, x, x, { causal: true });
Object.assign(document.getElementById('weights'), { matrix: weights, rowLabels: tokens, colLabels: tokens });

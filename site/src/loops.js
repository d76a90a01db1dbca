// When a sample "loops": some 4-gram of its tokens occurs 3 or more times in it. One definition for
// the generation lesson (lessons/kv-cache/parts.js) and scripts/measure-kjv.mjs, so the page and the README measure
// the same thing. (Held-out King James text loops by this count in 3.5% of its sixty-token windows.)
export function loops(ids) {
  const seen = new Map();
  for (let i = 0; i + 4 <= ids.length; i++) {
    const key = `${ids[i]},${ids[i + 1]},${ids[i + 2]},${ids[i + 3]}`;
    const n = (seen.get(key) ?? 0) + 1;
    if (n >= 3) return true;
    seen.set(key, n);
  }
  return false;
}

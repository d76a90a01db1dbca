// Checking what a page hands to <attn-logit-lens> and <attn-attribution>: a wrong shape or a value with
// no honest picture (a probability of 1.5, a NaN contribution) throws an AttnLabError naming the element
// and the property, from the setter, so the element keeps drawing its last good value.
import { AttnLabError } from '../lib/errors.js';
import { describe as describeKind, SLACK } from './weights-input.js';

// A number or a string is named with its value ("got number NaN"), as a probability or key is; other
// values as weights-input.js names them.
const describe = (value) => (typeof value === 'number' ? `number ${String(value)}`
  : typeof value === 'string' ? `string ${JSON.stringify(value)}` : describeKind(value));
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isIndex = (value) => Number.isInteger(value) && value >= 0;

// What model.logitLens(ids, …) returns: { points: string[], positions: number[], cells[point][i].top[k]
// = { id, probability } }, at least one point, one position and one top token per cell. → the lens.
export function checkLens(element, property, lens) {
  const name = `<${element}>.${property}`;
  if (!isObject(lens) || !Array.isArray(lens.points) || !Array.isArray(lens.positions) || !Array.isArray(lens.cells)) {
    throw new AttnLabError(`${name} must be what model.logitLens(ids) returns, { points, positions, cells }; got ${describe(lens)}`);
  }
  const { points, positions, cells } = lens;
  if (points.length === 0 || positions.length === 0) throw new AttnLabError(`${name} has no ${points.length ? 'positions' : 'points'}`);
  const badPoint = points.findIndex((p) => typeof p !== 'string');
  if (badPoint >= 0) throw new AttnLabError(`${name}.points[${badPoint}] must be a hook name (a string), got ${describe(points[badPoint])}`);
  const badPosition = positions.findIndex((p) => !isIndex(p));
  if (badPosition >= 0) throw new AttnLabError(`${name}.positions[${badPosition}] must be a whole number ≥ 0, got ${describe(positions[badPosition])}`);
  if (new Set(positions).size !== positions.length) throw new AttnLabError(`${name}.positions lists a position twice: ${positions.join(', ')}`);
  if (cells.length !== points.length) throw new AttnLabError(`${name}.cells has ${cells.length} rows but ${property}.points has ${points.length}`);
  cells.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== positions.length) {
      throw new AttnLabError(`${name}.cells[${r}] must hold ${positions.length} cells (one per position), got ${describe(row)}`);
    }
    row.forEach((cell, i) => {
      const where = `${name}.cells[${r}][${i}]`;
      if (!isObject(cell) || !Array.isArray(cell.top) || cell.top.length === 0) {
        throw new AttnLabError(`${where}.top must be a non-empty list of { id, probability }, got ${describe(cell?.top)}`);
      }
      cell.top.forEach((entry, k) => {
        if (!isObject(entry) || !isIndex(entry.id)) throw new AttnLabError(`${where}.top[${k}].id must be a token id (a whole number ≥ 0), got ${describe(entry?.id)}`);
        const p = entry.probability;
        if (typeof p !== 'number' || !(p >= -SLACK && p <= 1 + SLACK)) {
          throw new AttnLabError(`${where}.top[${k}].probability is ${describe(p)}: a probability is a number in [0, 1]`);
        }
      });
    });
  });
  return lens;
}

// How a token id is named: null (its id is shown), a function id → text, or a list of texts indexed
// by id (a vocabulary). → a function id → text.
export function checkTokenText(element, property, value) {
  if (value == null) return null;
  if (typeof value === 'function') return (id) => String(value(id));
  if (Array.isArray(value)) {
    const bad = value.findIndex((t) => typeof t !== 'string');
    if (bad >= 0) throw new AttnLabError(`<${element}>.${property}[${bad}] must be a string (a token's text), got ${describe(value[bad])}`);
    return (id) => value[id] ?? `#${id}`;
  }
  throw new AttnLabError(`<${element}>.${property} must be a function (id) → text, a list of texts indexed by id, or null; got ${describe(value)}`);
}

// Signed contributions: [{ key, label, value, text?, selectable? }], keys unique. → a copy of each item,
// key as a string.
export function checkItems(element, property, items) {
  const name = `<${element}>.${property}`;
  if (!Array.isArray(items)) throw new AttnLabError(`${name} must be a list of { key, label, value, text? }, got ${describe(items)}`);
  const seen = new Set();
  return items.map((item, i) => {
    const where = `${name}[${i}]`;
    if (!isObject(item)) throw new AttnLabError(`${where} must be { key, label, value, text? }, got ${describe(item)}`);
    const { key, label, value, text, selectable } = item;
    if (typeof key !== 'string' && !Number.isFinite(key)) throw new AttnLabError(`${where}.key must be a string or a number, got ${describe(key)}`);
    if (seen.has(String(key))) throw new AttnLabError(`${where}.key ${JSON.stringify(String(key))} is also an earlier item's: keys name one row each`);
    seen.add(String(key));
    if (typeof label !== 'string') throw new AttnLabError(`${where}.label must be a string, got ${describe(label)}`);
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new AttnLabError(`${where}.value must be a finite number, got ${describe(value)}`);
    if (text !== undefined && typeof text !== 'string') throw new AttnLabError(`${where}.text must be a string or absent, got ${describe(text)}`);
    if (selectable !== undefined && typeof selectable !== 'boolean') throw new AttnLabError(`${where}.selectable must be true, false or absent, got ${describe(selectable)}`);
    return { key: String(key), label, value, text, selectable };
  });
}

// The multi-head lesson's second figure: the learner's sentence through a trained model, one layer's
// heads side by side on the same weight scale as the random heads above, so "each head learns a
// different pattern" is seen and not only said. The model (about 5 MB) loads when the learner asks for
// it; the learner's own model, if one is stored, is used instead (gpt-model.js lessonModel).
import { AttnLabError } from 'attnlab';

import { el, field, select } from '../../dom.js';
import { describeHead } from '../../gpt-heads.js';
import { lessonModel, promptIds, tokenLabel } from '../../gpt-model.js';
import { TOKEN_MARKS } from '../../token-label.js';
import { heatmap, panel } from '../../views.js';

const FALLBACK = 'the cat sat on the mat';

// → { node, update() }; ctx.state.sentence is the text, ctx.state.layer the layer shown.
export function trainedHeadsSection(ctx) {
  const { lab, state } = ctx;
  const status = el('p', { class: 'explain', role: 'status', 'aria-live': 'polite' });
  const notices = el('div', { class: 'notices' });
  const controls = el('div', { class: 'controls' });
  const grid = el('div', { class: 'grid' });
  let loaded = null;     // { model, tokenizer, name } once loaded
  let maps = [];
  let shown = null;      // the sentence and layer on screen, to redraw only when one changes

  const load = async () => {
    button.disabled = true;
    status.textContent = 'Loading the trained model (about 5 MB)…';
    try {
      loaded = await lessonModel(lab, notices);
    } catch (error) {
      button.disabled = false;
      status.textContent = '';
      if (error instanceof AttnLabError) ctx.report(error);
      else throw error;
      return;
    }
    button.remove();
    const { numLayers, numHeads } = loaded.model.config;
    // A link (or a bigger model before) may name a layer this model lacks: say which one is shown, as
    // headInModel does for the lessons that pick a head.
    if (state.layer > numLayers - 1) {
      ctx.notice(`This model has ${numLayers} layers: showing layer ${numLayers - 1} instead of layer ${state.layer}.`);
      ctx.remember({ layer: numLayers - 1 });
    }
    const layers = Array.from({ length: numLayers }, (_, l) => [l, String(l)]);
    controls.append(field('Layer of the trained model', select(layers, state.layer,
      (l) => ctx.set({ layer: Number(l) }))));
    maps = Array.from({ length: numHeads }, () => heatmap({ rowTitle: 'Query', colTitle: 'Key' }));
    grid.replaceChildren(...maps.map((m) => panel(null, m, el('p', { class: 'field-hint' }))));
    update();
  };
  const button = el('button', { type: 'button', text: 'Load attnlab’s trained model (about 5 MB) and show its heads',
    on: { click: load } });

  function update() {
    if (!loaded) return;
    const { model, tokenizer, name } = loaded;
    const layer = Math.min(state.layer, model.config.numLayers - 1);
    if (shown?.sentence === state.sentence && shown.layer === layer) return;
    shown = { sentence: state.sentence, layer };
    const { ids, cut } = promptIds(tokenizer, model, state.sentence, FALLBACK);
    const { attention } = model.forward(ids, { attention: true, logits: 'none' });
    const labels = Array.from(ids, (id) => tokenLabel(tokenizer, id));
    maps.forEach((map, h) => {
      Object.assign(map, { caption: `Trained: layer ${layer}, head ${h}`, rowLabels: labels, colLabels: labels,
        matrix: attention[layer][h] });
      map.parentElement.querySelector('.field-hint').textContent = describeHead(attention[layer][h]);
    });
    status.textContent = `${name}, layer ${layer}: the sentence as its ${ids.length} tokens` +
      `${cut ? ` (the last ${ids.length}: the model reads at most ${model.config.contextLength})` : ''}, causal as it was trained.`;
  }

  const node = el('section', { class: 'trained-heads', 'aria-label': 'A trained model’s heads' },
    el('h2', { text: 'The same sentence through a trained model' }),
    el('p', { text: 'The heads above have random weights: nothing has taught them where to look, so they differ ' +
      'only by chance and most rows are spread thin. A trained model’s heads have each learned a job. Here is your ' +
      'sentence through a trained GPT (attnlab-kjv, trained by attnlab on the King James Bible, unless you loaded ' +
      'your own model), one layer at a time: its own tokens, causal attention, and under each head where its ' +
      `largest weights fall. ${TOKEN_MARKS}` }),
    notices, controls, button, status, grid);
  return { node, update };
}

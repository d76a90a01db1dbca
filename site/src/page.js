// The frame every lesson shares: navigation, the formula (typeset at build time), the matching PyTorch
// line and attnlab call, the URL state with its corrections, the loaded attnlab module with a loading
// state until then, and error display.
import 'katex/dist/katex.min.css';  // the formulas' layout; the browser fetches the fonts a formula uses
import 'virtual:attnlab-formula-styles.css';  // KaTeX's inline styles as classes (formula-plugin.js)
import '../styles.css';
import 'attnlab/components';
import { AttnLabError, prefetch } from 'attnlab';

import { el } from './dom.js';
import { siteHeader } from './header.js';
import { watchFormulaWidth } from './formula-fit.js';
import { FIRST_LOADING, headingTrees, loadingBodyTree, loadingText, pageTitle } from './lesson-frame.js';
import { buildTree } from './tree.js';
import { offerIsolation } from './isolation.js';
import { getLab } from './lab.js';
import { markOpened } from './progress.js';
import { safetensorsBytes } from './safetensors-file.js';
import { renderSnippet } from './snippet-render.js';
import { snippetModel } from './snippet-model.js';
import { readState, writeState } from './url-state.js';
import { showState } from './views.js';

export { getLab, siteHeader };


// The formula as KaTeX typeset it at build time: site/formula-plugin.js turns a lesson's
// `formula: String.raw`…`` into { tex, tree }, the tree being KaTeX's HTML and MathML (tree.js), its
// inline styles made classes. The TeX stays in the MathML's <annotation>, which the copy handler below
// copies.
function formulaTree(formula) {
  if (formula === null || formula === undefined) return null;
  if (typeof formula.tex !== 'string' || !Array.isArray(formula.tree)) {
    throw new TypeError('a lesson\'s formula must be String.raw`…`, typeset at build time by site/formula-plugin.js');
  }
  return formula.tree;
}

// Copying a selection inside one formula copies its TeX, not the glyphs' scattered text.
document.addEventListener('copy', (event) => {
  const selection = document.getSelection();
  if (!selection?.rangeCount || selection.isCollapsed) return;
  const inside = selection.getRangeAt(0).commonAncestorContainer;
  const formula = (inside.nodeType === Node.ELEMENT_NODE ? inside : inside.parentElement)?.closest('.formula');
  const tex = formula?.querySelector('annotation[encoding="application/x-tex"]')?.textContent;
  if (tex === undefined) return;
  event.clipboardData.setData('text/plain', tex);
  event.preventDefault();
});

// code: a string, or state → string for a snippet that quotes the page's settings (a learning rate,
// say), so what the snippet says is what the page runs; refresh() re-renders it from the state.
// extra: a node shown under the code (the link to a snippet's file).
function codeBlock(label, code, extra = null) {
  const text = el('code');
  // Said on the block when the controls hold a setting that was refused: the code is the last one that ran.
  const stale = el('p', { class: 'code-stale', hidden: true,
    text: 'Not your current setting: this is the code of the last setting that ran (the current one was refused: its message is above).' });
  // The block scrolls sideways on narrow screens, so it takes focus for keyboard scrolling.
  const node = el('figure', { class: 'code' }, el('figcaption', { text: label }), stale,
    el('pre', { tabindex: '0', 'aria-label': `${label} code` }, text), extra);
  const refresh = (state) => {
    text.textContent = typeof code === 'function' ? code(state) : code;
    stale.hidden = true;
  };
  return { node, refresh, markStale: () => { stale.hidden = typeof code !== 'function'; } };
}

// A lesson's PyTorch snippet: text, state → text, or a whole program { source, settings, file, tensors }:
// source is the lesson's program.py (site/src/lessons/<slug>/, imported ?raw), settings(state) gives its "# page setting" lines
// their values (snippet-render.js), and the program reads `file`, the page's inputs and weights, which
// tensors(lab, state, prepared) computes (PROGRAM in the lesson's settings.js; the test command runs the same program on the same file).
// settings(state, loaded) gets { lab, prepared } once they have loaded (null before); a program whose
// settings need them (the words of a trained model's sentence as its ids, say) returns null until then, and
// a setting no program can reproduce gets a text saying why, shown instead of the program.
// programFor(state) names another program for some settings (Watch it learn's translation task), its
// text in sources: { name: source }. tensors() may return a Promise (a file made by a module loaded on demand).
// fileUrls instead of tensors: the files the package ships that the program reads, { name: url }.
function pytorchCode(snippet, loaded) {
  if (typeof snippet === 'string' || typeof snippet === 'function') return snippet;
  return (state) => {
    const settings = snippet.settings?.(state, loaded.ready ? loaded : null);
    if (settings === null) return '# The program appears here once the lesson’s model has loaded.';
    if (typeof settings === 'string') return settings;
    const other = snippet.programFor?.(state);
    if (other && typeof snippet.sources?.[other] !== 'string') throw new Error(`the lesson does not import ./${other}.py`);
    return renderSnippet(other ? snippet.sources[other] : snippet.source, settings);
  };
}

// The links that download a snippet's files. A file of the page's inputs and weights (file, tensors) is
// written by the package from the page's current settings at the moment the link is followed (offline:
// nothing is fetched, nothing leaves the browser); a file the package ships (a trained model's weights,
// its vocabulary) is linked as it is (fileUrls: { name: url }). Inert until the page has loaded (ready()).
function snippetFile(snippet) {
  const shipped = Object.entries(snippet?.fileUrls ?? {});
  if (!snippet?.file && !shipped.length) return { node: null, ready() {} };
  const problem = el('span', { class: 'field-hint', role: 'status' });
  const links = shipped.map(([name]) => el('a', { download: name, text: `Download ${name}` }));
  const made = snippet.file && !shipped.length ? el('a', { download: snippet.file, text: `Download ${snippet.file}` }) : null;
  const node = el('p', { class: 'code-file' }, made
    ? ['The program reads the page’s inputs and weights from a file, made here from the settings above: ', made]
    : [shipped.length === 1 ? 'The program reads the file this page itself runs: ' : 'The program reads the files this page itself runs: ',
      ...links.flatMap((link, i) => (i ? [', ', link] : [link]))],
  made || shipped.length === 1 ? ' (save it beside your notebook). ' : ' (save them beside your notebook). ', problem);
  let url = '';
  return {
    node,
    ready(lab, state, prepared) {
      shipped.forEach(([, href], i) => { links[i].href = href; });
      if (!made) return;
      made.href = '#';
      let resent = false;  // the click sent again below once a file that needed a Promise is ready
      const refuse = (error) => { problem.textContent = `These settings give no file: ${error.message}`; };
      const offer = (tensors) => {
        URL.revokeObjectURL(url);
        url = URL.createObjectURL(new Blob([safetensorsBytes(tensors)], { type: 'application/octet-stream' }));
        made.href = url;  // read by the download that follows this click
        problem.textContent = '';
      };
      made.addEventListener('click', (event) => {
        if (resent) {
          resent = false;
          return;
        }
        try {
          const tensors = snippet.tensors(lab, state, prepared);
          if (!(tensors instanceof Promise)) {
            offer(tensors);
            return;
          }
          event.preventDefault();
          problem.textContent = 'Making the file…';
          tensors.then((t) => {
            offer(t);
            resent = true;
            made.click();
          }).catch(refuse);
        } catch (error) {
          event.preventDefault();
          refuse(error);
        }
      });
    },
  };
}

// lesson: { slug, intro: string[], formula, pytorch, call, schema, training?, prefetch?, prepare?, setup(ctx) };
// prefetch: the package features (prefetch() in attnlab) whose module and files prepare() will load.
// pytorch: a snippet as pytorchCode() takes it; call: code as text, or state → text.
// training: true loads attnlab's training module (TaskModel) before setup; other lessons never fetch it.
// lab: false for a lesson whose figures all run on the model its prepare() loads with a module of its
// own (the "it" lessons): the page then never downloads attnlab's main module, and ctx.lab is null.
// prepare(lab, notices, loading): awaited before setup (loading a model, say); its result is
// ctx.prepared. Until then the lesson body shows a loading state; loading(what) names what loads.
// setup builds the lesson's interactive part into ctx.root and returns update(), which recomputes and
// redraws from ctx.state; ctx.set(partial) changes state, writes the URL and calls update().
export async function lessonPage(lesson) {
  // The lesson's own module and model start downloading beside attnlab's main module, not after it.
  prefetch([...(lesson.training ? ['training'] : []), ...(lesson.prefetch ?? [])]);
  document.title = pageTitle(lesson.slug);
  const notices = el('div', { class: 'notices', role: 'status' });
  const errorBox = el('div', { class: 'error', role: 'alert', hidden: true });
  // Until the interactive part is built, the lesson body says what it is waiting for (the page's HTML
  // already showed the same, prerender-plugin.js).
  const root = buildTree(loadingBodyTree());
  const loading = root.querySelector('.lesson-loading');
  let loadingNow = '';
  const loadingWhat = (what) => {
    loadingNow = what;
    loading.textContent = loadingText(what);
  };
  const file = snippetFile(lesson.pytorch);
  const loaded = { ready: false, lab: null, prepared: undefined };  // for a snippet's settings, once loaded
  const snippets = [codeBlock('PyTorch', pytorchCode(lesson.pytorch, loaded), [snippetModel(lesson.pytorch), file.node]), codeBlock('attnlab', lesson.call)];
  // The code pair comes after the lesson: a snippet is now a whole program (tens of lines, a model part),
  // and above the figures it pushed the controls several screens down at 390 px and in the tab order.
  const main = el('main', { id: 'main' },
    ...headingTrees(lesson.slug, lesson.intro, formulaTree(lesson.formula)).map((tree) => buildTree(tree)),
    notices, errorBox, root,
    el('div', { class: 'code-pair' }, ...snippets.map((c) => c.node)));
  document.body.replaceChildren(siteHeader(lesson.slug), main);
  watchFormulaWidth(main);

  const { state, messages } = readState(lesson.schema ?? {});
  for (const snippet of snippets) snippet.refresh(state);
  for (const message of messages) notices.append(el('p', { class: 'notice', text: message }));
  let lab = null;
  let prepared;
  try {
    if (lesson.lab !== false) {
      loadingWhat(FIRST_LOADING);
      lab = await getLab();
    }
    if (lesson.training) {
      loadingWhat('attnlab’s training module');
      await lab.loadTraining();
    }
    if (lesson.prepare) {
      loadingWhat('the lesson’s model');
      prepared = await lesson.prepare(lab, notices, loadingWhat);
    }
  } catch (error) {
    errorBox.hidden = false;
    errorBox.textContent = `Could not load ${loadingNow}: ${error.message}`;
    loading.remove();
    root.removeAttribute('aria-busy');
    throw error;
  }
  // The model's load and the lesson's first figures are separate tasks of the page's thread: the load's
  // last piece resolves a promise, and without a turn in between the first render would run in its task.
  await new Promise((resolve) => setTimeout(resolve, 0));
  loading.remove();
  file.ready(lab, state, prepared);
  Object.assign(loaded, { ready: true, lab, prepared });
  const ctx = {
    lab,
    prepared,
    state,
    root,
    // Shows an AttnLabError's message (text only) instead of the lesson's last result: the figures
    // drawn for the previous inputs are hidden (styles.css, [data-refused]) until an input is accepted,
    // so nothing on screen contradicts the inputs; the controls stay, to fix the input. With `words` (the
    // lesson's sentence for this refusal, naming its own controls) the package's message is kept under
    // them, folded: it is written for a developer.
    report(error, words) {
      if (!(error instanceof AttnLabError)) throw error;
      errorBox.hidden = false;
      if (words) {
        errorBox.replaceChildren(el('p', { class: 'error-words', text: words }),
          el('details', { class: 'error-detail' }, el('summary', { text: 'The attnlab package’s message' }), el('code', { text: error.message })));
      } else {
        errorBox.textContent = error.message;
      }
      root.dataset.refused = 'true';
    },
    clearError() {
      errorBox.hidden = true;
      errorBox.textContent = '';
      delete root.dataset.refused;
    },
    set(partial) {
      Object.assign(state, partial);
      saveState();
      run();
    },
    // A notice above the lesson (a link's value that was corrected, say), shown once.
    notice(message) {
      if (![...notices.children].some((p) => p.textContent === message)) notices.append(el('p', { class: 'notice', text: message }));
    },
    // Records view-only state (such as the current step) in the URL without recomputing.
    remember(partial) {
      Object.assign(state, partial);
      saveState();
    },
  };
  // The URL follows the state a moment later: while the learner types or drags a slider, one
  // history write per pause instead of one per keystroke (each costs about a millisecond).
  let saveTimer = 0;
  const saveState = () => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => writeState(state), 150);
  };
  const update = lesson.setup(ctx);
  const run = () => {
    try {
      ctx.clearError();
      update();
      for (const snippet of snippets) snippet.refresh(state);
    } catch (error) {
      ctx.report(error);
      for (const snippet of snippets) snippet.markStale();  // a snippet that follows the controls no longer does
    }
    showState(root, state);  // the controls show the state, whether it was drawn or refused
  };
  writeState(state);
  await new Promise((resolve) => setTimeout(resolve, 0));  // the controls built (setup) and the first figures: two tasks
  run();
  root.removeAttribute('aria-busy');
  document.body.dataset.ready = 'true';
  performance.mark('interactive');  // bench/site-load.mjs reads it
  markOpened(lesson.slug);
  offerIsolation();
  return ctx;
}

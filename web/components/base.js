// What the three elements share:
//  - property changes are batched into one render per microtask, so setting matrix, labels and
//    palette together costs one render, and the render still lands before the next frame;
//  - properties a page set before the element was defined (the module loaded late) are not lost;
//  - simple properties live in attributes, so an HTML author can write <attn-heatmap palette=RdBu>.

import { AttnLabError } from '../lib/errors.js';
import { unknownNameMessage } from '../lib/option-names.js';

// Importing the bundle outside a browser (server rendering, Node tests) must not throw.
const Base = globalThis.HTMLElement ?? class {};

export class RenderedElement extends Base {
  #scheduled = false;
  #done = Promise.resolve();

  // Names of the JS-only properties (matrix, steps, …) to rescue from before the upgrade.
  static upgradedProperties = [];
  // Those of them that take only a function (no JSON can hold one): not read from a JSON child.
  static functionProperties = [];

  connectedCallback() {
    for (const name of this.constructor.upgradedProperties) {
      if (!Object.hasOwn(this, name)) continue;
      const value = this[name];
      delete this[name];
      this[name] = value;
    }
    this.#readJsonChild();
    // Attached while the parser is still reading the page: its JSON child may not be parsed yet.
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', () => { this.#readJsonChild(); this.requestRender(); }, { once: true });
    }
    this.requestRender();
  }

  // Data written into the page, for pages without code (a Markdown page, say): a child
  // <script type="application/json">{ "matrix": { "rows": 2, "cols": 2, "data": [...] }, "rowLabels": [...] }</script>
  // sets those JS-only properties (the names in upgradedProperties) once, when the element is attached.
  // The browser never runs it, so it passes a strict Content-Security-Policy. A malformed block or an
  // unknown key is logged as an AttnLabError naming the element; the element stays empty.
  #readJsonChild() {
    const block = [...this.children].find((c) => c.localName === 'script' && c.type === 'application/json');
    if (!block || block.dataset.read === 'true') return;
    block.dataset.read = 'true';
    const tag = this.localName;
    try {
      let values;
      try {
        values = JSON.parse(block.textContent);
      } catch (error) {
        throw new AttnLabError(`<${tag}>: its <script type="application/json"> is not valid JSON (${error.message})`);
      }
      if (values === null || typeof values !== 'object' || Array.isArray(values)) {
        throw new AttnLabError(`<${tag}>: its <script type="application/json"> must hold an object of properties`);
      }
      const known = this.constructor.upgradedProperties.filter((name) => !this.constructor.functionProperties.includes(name));
      const unknown = Object.keys(values).find((key) => !known.includes(key));
      if (unknown !== undefined) throw new AttnLabError(`<${tag}>: its JSON: ${unknownNameMessage(unknown, known, 'property')}`);
      for (const key of known) if (key in values) this[key] = values[key];
    } catch (error) {
      console.error(error);
    }
  }

  attributeChangedCallback() {
    this.requestRender();
  }

  requestRender() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#done = Promise.resolve().then(() => this.renderNow());
  }

  // Renders at once if a render is pending (toSVG must show the latest property values).
  renderNow() {
    if (!this.#scheduled) return;
    this.#scheduled = false;
    this.render();
  }

  // Resolves after the pending render (for tests and for code that measures the result).
  get updateComplete() {
    return this.#done;
  }
}

// Defines properties backed by attributes. table: { prop: { attr, fallback, parse } }; parse turns
// the attribute's text into the property's value; writing null or undefined removes the attribute.
export function attributeProperties(elementClass, table) {
  for (const [prop, { attr, fallback, parse = String }] of Object.entries(table)) {
    Object.defineProperty(elementClass.prototype, prop, {
      configurable: true,
      get() {
        const text = this.getAttribute(attr);
        return text === null ? fallback : parse(text);
      },
      set(value) {
        if (value === null || value === undefined) this.removeAttribute(attr);
        else this.setAttribute(attr, String(value));
      },
    });
  }
  const observed = Object.values(table).map((spec) => spec.attr);
  Object.defineProperty(elementClass, 'observedAttributes', {
    configurable: true,
    get: () => observed,
  });
}

// Registers each element unless a tag is taken (the bundle imported twice, or a page's own class).
export function defineElements(elements) {
  if (!globalThis.customElements) return;
  for (const [name, elementClass] of Object.entries(elements)) {
    if (!customElements.get(name)) customElements.define(name, elementClass);
  }
}

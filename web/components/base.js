// What the three elements share:
//  - property changes are batched into one render per microtask, so setting matrix, labels and
//    palette together costs one render, and the render still lands before the next frame;
//  - properties a page set before the element was defined (the module loaded late) are not lost;
//  - simple properties live in attributes, so an HTML author can write <attn-heatmap palette=RdBu>.

// Importing the bundle outside a browser (server rendering, Node tests) must not throw.
const Base = globalThis.HTMLElement ?? class {};

export class RenderedElement extends Base {
  #scheduled = false;
  #done = Promise.resolve();

  // Names of the JS-only properties (matrix, steps, …) to rescue from before the upgrade.
  static upgradedProperties = [];

  connectedCallback() {
    for (const name of this.constructor.upgradedProperties) {
      if (!Object.hasOwn(this, name)) continue;
      const value = this[name];
      delete this[name];
      this[name] = value;
    }
    this.requestRender();
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

// A few DOM helpers so components build elements in one expression. Text always goes in as text
// nodes or attributes, never as HTML: job names, commands and output are untrusted.
// Must not: use innerHTML, inline event-handler attributes or style attributes (the page runs
// under a strict Content-Security-Policy; styles are set through the CSSOM instead).
import type { Clock } from '../../common/clock.js';

export type Child = Node | string | number | null | undefined | false;
type Listener = (event: Event) => void;
export type Attrs = Readonly<
  Record<string, string | number | boolean | null | undefined | Listener>
>;

/** `h('button', { class: 'btn', onclick: run, 'aria-label': 'Run' }, 'Run')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  applyAttrs(element, attrs);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element (charts, sparklines). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  applyAttrs(element, attrs);
  append(element, children);
  return element;
}

function applyAttrs(element: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.setAttribute('class', String(value));
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** A captioned `.data-table` (the panels' and drawers' listings); `rowAttrs` tags rows. */
export function dataTable(
  caption: string,
  head: readonly string[],
  rows: readonly (readonly Child[])[],
  rowAttrs: (index: number) => Attrs = () => ({}),
): HTMLElement {
  return h(
    'table',
    { class: 'data-table' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...head.map((label) => h('th', { scope: 'col' }, label)))),
    h(
      'tbody',
      {},
      ...rows.map((cells, index) =>
        h('tr', rowAttrs(index), ...cells.map((cell) => h('td', {}, cell))),
      ),
    ),
  );
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Sets text only when it changed (cheap to call on every tick). */
export function setText(node: Element, text: string): void {
  // A lone text child takes the new characters in place: replacing the node (what assigning
  // textContent does) also restyles it and rebuilds its layout object, on every tick of every
  // countdown. An empty text removes the node (an element left with an empty text node is not
  // `:empty` in every engine).
  const only = node.firstChild;
  if (text !== '' && only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE) {
    const textNode = only as Text;
    if (textNode.data !== text) textNode.data = text;
  } else if (node.textContent !== text) node.textContent = text;
}

/** Sets or removes an attribute only when it changed. */
export function setAttr(node: Element, name: string, value: string | null): void {
  if (value === null) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Whether keyboard focus is in a field that takes text (shortcuts stay out of its way). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return (
    target instanceof HTMLInputElement &&
    !['checkbox', 'radio', 'button', 'submit', 'range'].includes(target.type)
  );
}

/** A page-unique id for label/aria wiring (random: no module-level counter). */
export function uniqueId(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/** How long afterPaint waits for a frame at most (a hidden tab paints none). */
const PAINT_WAIT_MS = 100;

/**
 * Resolves once the next frame is painted (at most PAINT_WAIT_MS from now): work that is not
 * in the first frame waits for it instead of delaying it.
 */
export function afterPaint(clock: Clock): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimer(resolve, PAINT_WAIT_MS);
    // A frame's callbacks run before it is painted; the task after them runs once it is.
    requestAnimationFrame(() =>
      clock.setTimer(() => {
        timer.cancel();
        resolve();
      }, 0),
    );
  });
}

// A few DOM helpers: pages build their markup with el() (text always as text nodes, never as HTML), so nothing a
// carrier record or an API answer holds can become markup.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let fieldSeq = 0;
/** A labelled control: the label names it for assistive technology and for tests (getByLabel). */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): HTMLElement {
  fieldSeq += 1;
  const id = control.id || `f${fieldSeq}`;
  control.id = id;
  return el('div', { class: 'field' }, el('label', { for: id }, label), control);
}

export function select(options: ReadonlyArray<readonly [string, string]>, value?: string): HTMLSelectElement {
  const node = el('select');
  for (const [v, text] of options) node.appendChild(el('option', { value: v, selected: v === value }, text));
  return node;
}

export function toast(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const box = document.getElementById('toast');
  if (!box) return;
  replace(box, el('p', { class: `toast ${kind}` }, message));
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function chip(text: string, kind = ''): HTMLElement {
  return el('span', { class: `chip ${kind}` }, text);
}

// Building DOM nodes.

/** An element with attributes (`on...` ones as listeners, `class` as the class name; null,
 * undefined and false left out) and children (nodes, or text; null, undefined and false left
 * out; arrays flattened). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, any>,
  ...children: any[]
): HTMLElementTagNameMap[K];
export function el(tag: string, attrs?: Record<string, any>, ...children: any[]): HTMLElement;
export function el(tag: string, attrs: Record<string, any> = {}, ...children: any[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A line that answers an action: its text in green for a success, red for a refusal (the
 * `data-…` attribute in `attrs` names it for tests). */
export function answerLine(attrs: Record<string, string>) {
  const node = el('p', { class: 'settings-answer', role: 'status', ...attrs });
  const say = (text: string, ok: boolean) => {
    node.textContent = text;
    node.classList.toggle('error', !ok);
    node.classList.toggle('ok', ok);
  };
  return { node, say };
}

// Small DOM helpers. Text always goes in as text nodes, never as markup.

/**
 * `el('td', { className: 'num' }, '42')`: an element with properties and children.
 * @param {string} tag
 * @param {Record<string, unknown>} [props]  Element properties; `dataset` is merged.
 * @param {...(Node | string | number)} children
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  const { dataset, ...rest } = props;
  Object.assign(node, rest);
  if (dataset) Object.assign(node.dataset, dataset);
  node.append(...children.map((c) => (c instanceof Node ? c : String(c))));
  return node;
}

/** `document.getElementById`, failing loudly on a missing element. */
export function byId(id) {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`#${id} is missing from the page`);
  return node;
}

/** Shows `message` in an alert element, or hides it when `message` is empty. */
export function showMessage(node, message) {
  node.textContent = message;
  node.hidden = message === '';
}

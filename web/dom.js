// Builds the console's DOM. Text from jobs (model output, tool arguments and results) is only
// ever set as text nodes: nothing here parses markup, so such text shows as it is written.

/**
 * A new element. `options.className`, `options.text` (set as text), `options.attributes`
 * (plain values set with setAttribute); `children` are nodes, or strings set as text.
 */
export function element(tag, options = {}, ...children) {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = String(options.text);
  for (const [name, value] of Object.entries(options.attributes ?? {})) {
    node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** Replaces the children of `node` with `children`. */
export function replaceChildren(node, ...children) {
  node.replaceChildren(
    ...children
      .filter((child) => child !== undefined && child !== null)
      .map((child) => (typeof child === 'string' ? document.createTextNode(child) : child)),
  );
}

/** A value as indented JSON text, for a `<pre>`. */
export function jsonText(value) {
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}

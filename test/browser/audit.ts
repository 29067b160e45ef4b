// An axe-style audit run inside the page (no network, no axe): the WCAG 2 contrast ratio of
// every visible text node against the background it is painted on (4.5:1, or 3:1 for large
// text; disabled controls are exempt as WCAG allows), and an accessible name for every visible
// control, image, dialog and log. The function is self-contained: page.evaluate serialises it.

export interface AuditIssue {
  readonly kind: 'contrast' | 'name';
  readonly element: string;
  readonly detail: string;
}

export function auditAccessibility(): AuditIssue[] {
  type Rgba = [number, number, number, number];
  const issues: AuditIssue[] = [];

  const parseColor = (text: string): Rgba | null => {
    let match = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(text);
    if (match !== null)
      return [
        Number(match[1]),
        Number(match[2]),
        Number(match[3]),
        match[4] === undefined ? 1 : Number(match[4]),
      ];
    match = /^color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.e-]+))?\)$/.exec(text);
    if (match !== null)
      return [
        Number(match[1]) * 255,
        Number(match[2]) * 255,
        Number(match[3]) * 255,
        match[4] === undefined ? 1 : Number(match[4]),
      ];
    return null;
  };
  const over = (top: Rgba, bottom: Rgba): Rgba => {
    const alpha = top[3] + bottom[3] * (1 - top[3]);
    if (alpha === 0) return [0, 0, 0, 0];
    const mix = (i: number): number =>
      (top[i]! * top[3] + bottom[i]! * bottom[3] * (1 - top[3])) / alpha;
    return [mix(0), mix(1), mix(2), alpha];
  };
  const luminance = (c: Rgba): number => {
    const channel = (v: number): number => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
  };
  const describe = (element: Element): string => {
    const cls =
      typeof element.className === 'string' && element.className !== ''
        ? `.${element.className.trim().split(/\s+/).join('.')}`
        : '';
    const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${element.tagName.toLowerCase()}${cls}${text === '' ? '' : ` "${text}"`}`;
  };
  const visible = (element: Element): boolean => {
    if (!element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    const rect = element.getBoundingClientRect();
    return rect.width > 1 && rect.height > 1;
  };
  /** The opaque colour behind an element: its own and its ancestors' backgrounds composited. */
  const backgroundOf = (element: Element): Rgba => {
    const layers: Rgba[] = [];
    for (let node: Element | null = element; node !== null; node = node.parentElement) {
      const color = parseColor(getComputedStyle(node).backgroundColor);
      if (color !== null && color[3] > 0) {
        layers.push(color);
        if (color[3] >= 1) break;
      }
    }
    let result: Rgba = [255, 255, 255, 1];
    for (const layer of layers.reverse()) result = over(layer, result);
    return result;
  };
  const opacityOf = (element: Element): number => {
    let opacity = 1;
    for (let node: Element | null = element; node !== null; node = node.parentElement)
      opacity *= Number(getComputedStyle(node).opacity);
    return opacity;
  };

  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const checked = new Set<Element>();
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const element = node.parentElement;
    if (element === null || checked.has(element) || (node.textContent ?? '').trim() === '')
      continue;
    checked.add(element);
    if (element.closest('svg, script, style, noscript, option, datalist') !== null) continue;
    if (element.closest(':disabled, [aria-disabled="true"]') !== null) continue;
    if (!visible(element)) continue;
    const style = getComputedStyle(element);
    const fgRaw = parseColor(style.color);
    if (fgRaw === null) {
      issues.push({
        kind: 'contrast',
        element: describe(element),
        detail: `unreadable colour ${style.color}`,
      });
      continue;
    }
    const background = backgroundOf(element);
    const fg = over([fgRaw[0], fgRaw[1], fgRaw[2], fgRaw[3] * opacityOf(element)], background);
    const [light, dark] = [luminance(fg), luminance(background)].sort((a, b) => b - a) as [
      number,
      number,
    ];
    const ratio = (light + 0.05) / (dark + 0.05);
    const size = parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < needed) {
      issues.push({
        kind: 'contrast',
        element: describe(element),
        detail: `${ratio.toFixed(2)}:1 < ${needed}:1 (${style.color} on rgb(${background.slice(0, 3).map(Math.round).join(', ')}))`,
      });
    }
  }

  const nameOf = (element: Element): string => {
    const aria = element.getAttribute('aria-label');
    if (aria !== null && aria.trim() !== '') return aria;
    const labelledBy = element.getAttribute('aria-labelledby');
    if (labelledBy !== null) {
      const text = labelledBy
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ')
        .trim();
      if (text !== '') return text;
    }
    if (
      element instanceof HTMLInputElement ||
      element instanceof HTMLSelectElement ||
      element instanceof HTMLTextAreaElement
    ) {
      const labels = [...(element.labels ?? [])]
        .map((label) => label.textContent ?? '')
        .join(' ')
        .trim();
      if (labels !== '') return labels;
    }
    const title = element.getAttribute('title');
    const isTextual = element.matches(
      'button, a, summary, [role=button], [role=tab], [role=option], [role=link]',
    );
    if (isTextual) {
      const text = (element.textContent ?? '').trim();
      if (text !== '') return text;
    }
    return title?.trim() ?? '';
  };
  const needsName = document.querySelectorAll(
    'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [role=tab], [role=img], [role=log], [role=dialog], dialog, [role=table], [role=listbox], [tabindex]:not([tabindex="-1"])',
  );
  for (const element of needsName) {
    if (!visible(element) && !(element instanceof HTMLDialogElement && element.open)) continue;
    if (nameOf(element) === '')
      issues.push({ kind: 'name', element: describe(element), detail: 'no accessible name' });
  }
  return issues;
}

/** Whether the focused element shows a focus indicator (outline or box-shadow ring). */
export function focusIndicator(): { element: string; visible: boolean } | null {
  const element = document.activeElement;
  if (element === null || element === document.body) return null;
  const style = getComputedStyle(element);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
  const ring = style.boxShadow !== 'none' && element.matches(':focus-visible');
  const text = (element.textContent ?? '').trim().slice(0, 30);
  return {
    element: `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} "${text}"`,
    visible: outline || ring,
  };
}

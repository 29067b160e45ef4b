// Turns parsed ANSI segments into spans: the 16 base colours are classes the theme styles for
// contrast, 256-palette and 24-bit colours are set through the CSSOM (allowed under the CSP).
import { PLAIN_STYLE, paletteCss, type AnsiColor, type AnsiSegment } from '../../model/ansi.js';

function colorClass(
  prefix: 'fg' | 'bg',
  color: AnsiColor | null,
  span: HTMLElement,
): string | null {
  if (color === null) return null;
  if (color.kind === 'palette' && color.index < 16) return `a-${prefix}-${color.index}`;
  const css =
    color.kind === 'palette' ? paletteCss(color.index) : `rgb(${color.r}, ${color.g}, ${color.b})`;
  if (prefix === 'fg') span.style.color = css;
  else span.style.backgroundColor = css;
  return null;
}

export function renderSegments(target: HTMLElement, segments: readonly AnsiSegment[]): void {
  for (const segment of segments) {
    const { style } = segment;
    // The parser hands out the one PLAIN_STYLE object for unstyled text.
    if (style === PLAIN_STYLE) {
      target.append(segment.text);
      continue;
    }
    const span = document.createElement('span');
    const classes = [
      colorClass('fg', style.fg, span),
      colorClass('bg', style.bg, span),
      style.bold ? 'a-b' : null,
      style.dim ? 'a-d' : null,
      style.italic ? 'a-i' : null,
      style.underline ? 'a-u' : null,
      style.inverse ? 'a-inv' : null,
    ].filter((name) => name !== null);
    if (classes.length > 0) span.className = classes.join(' ');
    span.textContent = segment.text;
    target.append(span);
  }
}

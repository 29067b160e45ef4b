// Copy and download helpers. navigator.clipboard needs a secure context (https or loopback);
// elsewhere a hidden textarea and execCommand('copy') do it.
import { h } from './dom.js';

export async function copyText(text: string): Promise<boolean> {
  try {
    if (window.isSecureContext && navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Fall through to the textarea way (permission refused, unfocused page).
  }
  const area = h('textarea', { class: 'visually-hidden', 'aria-hidden': 'true', readonly: true });
  area.value = text;
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

/** Saves `text` as a file the browser downloads. */
export function downloadText(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const link = h('a', { href: url, download: filename, class: 'visually-hidden' });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoking at once can cancel the download in some browsers; the next task is late enough.
  window.requestAnimationFrame(() => URL.revokeObjectURL(url));
}

/** A file-name-safe slug of a job name. */
export function fileSlug(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'job';
}

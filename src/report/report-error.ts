// The reporters' one error type and the helpers that keep secrets out of it. A ReportError
// carries only a message built here (never a cause object): loggers serialise whole error
// graphs, and an undici or URL error can hold the webhook URL or the DSN in a property.
import { formatSeconds, YacronError, type Clock } from '../common/index.js';
import { textOf } from './jinja-values.js';

export type ReporterName = 'sentry' | 'mail' | 'shell' | 'webhook';

export class ReportError extends YacronError {
  readonly reporter: ReporterName;

  constructor(reporter: ReporterName, message: string) {
    super('YC_ERR_REPORT_FAILED', message);
    this.name = 'ReportError';
    this.reporter = reporter;
  }
}

const REDACTED = '<redacted>';

/**
 * The messages of `error` and its causes, joined with ': ' (undici's `fetch failed` says
 * nothing until its cause is added), with every non-empty secret replaced.
 */
export function describeSafely(error: unknown, secrets: readonly (string | null)[]): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const message = current instanceof Error ? current.message : textOf(current);
    if (message !== '' && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return redact(parts.join(': ') || 'unknown error', secrets);
}

export function redact(text: string, secrets: readonly (string | null)[]): string {
  let out = text;
  // Longest first, so a secret containing another is replaced whole.
  const sorted = secrets
    .filter((secret): secret is string => secret !== null && secret.length > 0)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) out = out.replaceAll(secret, REDACTED);
  return out;
}

/**
 * An AbortSignal that fires after `ms` of the injected clock's time, with a readable reason.
 * dispose() cancels the timer; call it once the guarded work is over.
 */
export function timeoutSignal(
  clock: Clock,
  ms: number,
): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const timer = clock.setTimer(() => {
    controller.abort(new Error(`timed out after ${formatSeconds(ms)} seconds`));
  }, ms);
  return { signal: controller.signal, dispose: () => timer.cancel() };
}

/** Up to `maxChars` code points of a response body; the rest is not read. */
export async function readTextPrefix(response: Response, maxChars: number): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while ([...text].length < maxChars) {
      const { done, value } = await reader.read();
      if (done) {
        text += decoder.decode();
        break;
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return [...text].slice(0, maxChars).join('');
}

// The first `GET /jobs`, started by a small script in the page's <head> (src/web/prefetch.ts)
// before the dashboard's bundle is parsed, so the body crosses the wire while the bundle compiles
// (docs/dashboard.md "First render"). The page waits a bounded time for it before building the
// app, so the shell and the first rows are laid out and painted once, in the first frame; the
// app's first poll takes this answer instead of asking again, when the token it would send is
// the one sent here.
// Must not: keep the answer past the first poll, or send anything the API client would not (the
// same headers, the same time limit, the same token).
import type { Clock } from '../../common/clock.js';
import { API_TIMEOUT_MS } from './api.js';
import { TOKEN_KEY, tokenInHash } from './token-store.js';

/** What the early request got: the body, or nothing usable (the first poll asks again). */
export type FirstJobsAnswer =
  { readonly kind: 'body'; readonly text: string } | { readonly kind: 'none' };

export interface FirstJobs {
  /** The token the request carried (null: none). */
  readonly token: string | null;
  readonly answer: Promise<FirstJobsAnswer>;
  /**
   * The answer once it is in (null before): the app applies a body that came while its bundle
   * was being parsed before it returns, so the first frame has the rows.
   */
  settled: FirstJobsAnswer | null;
}

declare global {
  interface Window {
    __yacron2FirstJobs?: FirstJobs;
  }
}

/**
 * How long the page waits for the early answer before it builds the app without it: the shell
 * and the rows then come in one frame, instead of a frame of an empty shell first.
 */
export const FIRST_JOBS_WAIT_MS = 400;

/** The token the app will use: a `#token=` fragment wins over the tab's stored one. */
function currentToken(): string | null {
  let token = tokenInHash(location.hash);
  if (token === null) {
    try {
      token = sessionStorage.getItem(TOKEN_KEY);
    } catch {
      token = null; // storage disabled by the browser
    }
  }
  const trimmed = token?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/** Starts the early request (the <head> script). */
export function startFirstJobs(): FirstJobs {
  const token = currentToken();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token !== null) headers['Authorization'] = `Bearer ${token}`;
  const answer = fetch('/jobs', {
    headers,
    cache: 'no-store',
    signal: AbortSignal.timeout(API_TIMEOUT_MS),
  }).then(async (response): Promise<FirstJobsAnswer> =>
    response.ok ? { kind: 'body', text: await response.text() } : { kind: 'none' },
  );
  const early: FirstJobs = {
    token,
    answer: answer
      .catch((): FirstJobsAnswer => ({ kind: 'none' }))
      .then((settled) => (early.settled = settled)),
    settled: null,
  };
  return early;
}

/**
 * The early answer for the first poll, once: null when there was none or it carried another
 * token than `token` (the one the app sends now).
 */
export function takeFirstJobs(
  early: FirstJobs | undefined,
  token: string | null,
): FirstJobs | null {
  if (early === undefined || early.token !== token) return null;
  return early;
}

/**
 * Resolves when the early answer is in, or after `maxWaitMs` (the app is then built and its first
 * poll waits for the answer itself).
 */
export function firstJobsIn(early: FirstJobs, clock: Clock, maxWaitMs: number): Promise<void> {
  if (early.settled !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = clock.setTimer(resolve, maxWaitMs);
    void early.answer.then(() => {
      timer.cancel();
      resolve();
    });
  });
}

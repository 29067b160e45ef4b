// Who a gate decision (or a run cancel) says it is from (docs/dags.md "Who decides"): the
// request's `by`, self-declared and not authenticated — whoever may call the control API may write
// any name. It is stored in the run document, shown on the dashboard and written to the log, so it
// is bounded and plain: at most MAX_ACTOR_CHARS characters, no control, line-separator or bidi
// characters (a name cannot forge a log line or reorder the text around it). Absent, null or
// empty: `api`.
// Must not: trim or rewrite a name (a refused name is refused with the reason, never repaired).

export const MAX_ACTOR_CHARS = 200;
export const DEFAULT_ACTOR = 'api';

export type ActorVerdict =
  | { readonly kind: 'ok'; readonly by: string }
  | { readonly kind: 'refused'; readonly reason: string };

// C0, DEL and C1 controls, lone surrogates, U+2028/U+2029, and the bidi embeddings, overrides
// and isolates.
const FORBIDDEN = /[\p{Cc}\p{Cs}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The `by` field of a request body, checked. */
export function actorOf(raw: unknown): ActorVerdict {
  if (raw === undefined || raw === null || raw === '') return { kind: 'ok', by: DEFAULT_ACTOR };
  if (typeof raw !== 'string') return { kind: 'refused', reason: "'by' must be a string" };
  const chars = [...raw].length;
  if (chars > MAX_ACTOR_CHARS) {
    return {
      kind: 'refused',
      reason: `'by' is ${chars} characters, over the limit of ${MAX_ACTOR_CHARS}`,
    };
  }
  const bad = FORBIDDEN.exec(raw);
  if (bad !== null) {
    const code = bad[0].codePointAt(0) ?? 0;
    return {
      kind: 'refused',
      reason: `'by' holds the control or formatting character U+${code.toString(16).toUpperCase().padStart(4, '0')} at ${bad.index}`,
    };
  }
  return { kind: 'ok', by: raw };
}

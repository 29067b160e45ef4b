// The daemon's life as one table of parts (docs/architecture.md "The daemon"): each part names
// the parts it comes `after`, and the three orders are computed from those edges instead of kept
// by hand — start-up runs the parts in a topological order, a reload reconciles them in that same
// order, and stop closes them in exactly its reverse (a part closes before everything it came
// after). Each part registers its own close where it is declared. Pure: no I/O, no clock;
// start.ts runs the plan.
// Must not: order anything by hand outside the edges (table order only breaks ties between parts
// no edge relates); accept a cycle, a duplicate name or an edge to a part that does not exist.
/** How a part closes at stop. */
export type PartClose =
  /** Waited for to the end, however long it takes (stop firing, the drain, plain releases). */
  | { readonly kind: 'awaited'; readonly run: () => Promise<void> | void }
  /**
   * Shares the teardown's deadline (shutdown-steps.ts): abandoned, and named in the log, when
   * it does not finish in time. `run` returns undefined when there is nothing to wait for;
   * `present` says whether the part exists now (an absent one is not named as pending).
   */
  | {
      readonly kind: 'bounded';
      readonly run: () => Promise<unknown> | undefined;
      readonly present?: () => boolean;
    };

/** The configuration a reconcile applies, and the one it replaces (undefined at start-up). */
export interface ConfigChange<Config> {
  readonly previous: Config | undefined;
  readonly next: Config;
}

export interface Part<Config> {
  /** Unique; a bounded close is named by it in the shutdown log ("the state store"). */
  readonly name: string;
  /** Parts that start before this one and close after it. */
  readonly after?: readonly string[];
  /**
   * Apply a configuration: at start-up (`previous` undefined, before `start`) and on every
   * reload that changed it.
   */
  readonly reconcile?: (config: ConfigChange<Config>) => Promise<void> | void;
  /** Once, at start-up, after `reconcile`. */
  readonly start?: () => Promise<void> | void;
  /** Every reload check, changed configuration or not (housekeeping), in start order. */
  readonly pass?: () => Promise<void> | void;
  readonly close?: PartClose;
}

/** The orders computed from a table: `teardown` is `start` reversed, closers only. */
export interface PartsPlan<Config> {
  readonly start: readonly Part<Config>[];
  readonly reload: readonly Part<Config>[];
  readonly pass: readonly Part<Config>[];
  readonly teardown: readonly Part<Config>[];
}

/** A table whose order cannot be computed: the message names the parts at fault. */
export class PartsOrderError extends Error {
  override readonly name = 'PartsOrderError';
}

/**
 * The start order: a topological order of the `after` edges, the table's own order breaking
 * ties (the first ready part in the table goes next). Throws PartsOrderError on a duplicate
 * name, an edge to an unknown part, or a cycle (named part by part).
 */
export function planParts<Config>(parts: readonly Part<Config>[]): PartsPlan<Config> {
  const byName = new Map<string, Part<Config>>();
  for (const part of parts) {
    if (byName.has(part.name)) throw new PartsOrderError(`Two parts are named "${part.name}"`);
    byName.set(part.name, part);
  }
  for (const part of parts) {
    for (const before of part.after ?? []) {
      if (!byName.has(before)) {
        throw new PartsOrderError(`Part "${part.name}" is after "${before}", which is no part`);
      }
    }
  }
  const placed = new Set<string>();
  const start: Part<Config>[] = [];
  while (start.length < parts.length) {
    const next = parts.find(
      (part) => !placed.has(part.name) && (part.after ?? []).every((name) => placed.has(name)),
    );
    if (next === undefined) throw new PartsOrderError(describeCycle(parts, placed));
    placed.add(next.name);
    start.push(next);
  }
  return {
    start,
    reload: start.filter((part) => part.reconcile !== undefined),
    pass: start.filter((part) => part.pass !== undefined),
    teardown: start.filter((part) => part.close !== undefined).reverse(),
  };
}

/**
 * Run `step` on each part in order, awaiting only what returns a promise: synchronous steps run
 * in one turn, as a plain sequence of calls would (nothing queued in between can slip past,
 * e.g. the start-up pass's first events before the durable boot sequence subscribes).
 */
export async function runInOrder<P>(
  parts: readonly P[],
  step: (part: P) => Promise<void> | void,
): Promise<void> {
  for (const part of parts) {
    const pending = step(part);
    if (pending !== undefined) await pending;
  }
}

/** One cycle among the parts not placed (each of them waits on another one of them). */
function describeCycle<Config>(
  parts: readonly Part<Config>[],
  placed: ReadonlySet<string>,
): string {
  const waiting = new Map<string, string>();
  for (const part of parts) {
    if (placed.has(part.name)) continue;
    const blocker = (part.after ?? []).find((name) => !placed.has(name));
    if (blocker !== undefined) waiting.set(part.name, blocker);
  }
  // Every unplaced part waits on an unplaced part, so following the waits from any of them
  // must come back to a part already on the path.
  const [first] = waiting.keys();
  const path: string[] = [];
  let at = first;
  while (at !== undefined && !path.includes(at)) {
    path.push(at);
    at = waiting.get(at);
  }
  const cycle = at === undefined ? path : [...path.slice(path.indexOf(at)), at];
  return `The parts' after-edges form a cycle: ${cycle.map((name) => `"${name}"`).join(' after ')}`;
}

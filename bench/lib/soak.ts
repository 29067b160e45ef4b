// What the soaks in bench/ share: numeric command-line flags, a seeded PRNG so a run can be
// replayed with --seed, and the wall-clock pauses a chaos loop is made of (a soak injects faults
// at random real times; it is not a test and waits on nothing else).
//
// Must not: be used by tests (tests wait on events, never on time).

/** `--name <number>` from argv, or `fallback`. */
export function numberFlag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} must be a number`);
  return value;
}

/** `--name <word>` from argv, one of `choices` (the first is the default). */
export function choiceFlag<T extends string>(name: string, choices: readonly [T, ...T[]]): T {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return choices[0];
  const value = process.argv[at + 1] as T;
  if (!choices.includes(value)) throw new Error(`--${name} must be one of ${choices.join(', ')}`);
  return value;
}

/** A small deterministic PRNG (mulberry32): the same seed replays the same chaos. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

export const progress = (text: string): void =>
  void process.stderr.write(`${new Date().toISOString()} ${text}\n`);

/**
 * The counted window of a soak: `firings` one-second slots starting two seconds from now, with
 * `chaos` run every 4–10 s (drawn from `random`) until `quietTailS` seconds before the last slot,
 * then a wait past the last slot. Returns the window's first and last epoch seconds.
 */
export async function chaosWindow(
  firings: number,
  quietTailS: number,
  random: () => number,
  chaos: () => Promise<void>,
): Promise<{ firstSecond: number; lastSecond: number }> {
  const nowSecond = (): number => Math.floor(Date.now() / 1000);
  const firstSecond = nowSecond() + 2;
  const lastSecond = firstSecond + firings - 1;
  while (nowSecond() < lastSecond - quietTailS) {
    await pause(4_000 + random() * 6_000);
    if (nowSecond() >= lastSecond - quietTailS) break;
    await chaos();
  }
  while (nowSecond() <= lastSecond + 1) await pause(200);
  return { firstSecond, lastSecond };
}

/** The nodes that ran `job` in each second of [first, last], from witness lines. */
export function nodesPerSecond(
  firings: readonly { readonly second: number; readonly node: string; readonly job: string }[],
  job: string,
  firstSecond: number,
  lastSecond: number,
): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const firing of firings) {
    if (firing.job !== job || firing.second < firstSecond || firing.second > lastSecond) continue;
    out.set(firing.second, [...(out.get(firing.second) ?? []), firing.node]);
  }
  return out;
}

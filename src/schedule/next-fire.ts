// Next fire instant of a compiled expression in a zone, including the DST rules; pure (the
// reference instant is an argument, never read from a clock).
//
// The fire instants of a schedule are defined as { instantOf(w) : w a matching wall time }:
//  - a wall time that exists once maps to its instant;
//  - a wall time skipped by spring-forward is read with the pre-transition offset, so it fires
//    the gap's length after the jump (New York `30 2 * * *` -> 03:30 EDT, `0 2` -> 03:00 EDT);
//  - a wall time repeated by fall-back maps to its FIRST occurrence only. The second pass of
//    the repeated hour therefore never fires, whatever the reference instant: from 01:45 EST
//    (the second 01:45 of a New York fall-back night) `*/5 * * * *` next fires at 02:00 EST,
//    not at 01:50 EST (a repeat) and not at 01:50 EDT (in the past: the legacy engine's
//    negative delay, recorded in the golden vectors).
// nextFireTime returns the smallest fire instant strictly after the reference instant truncated
// to whole seconds, so a result is never in the past and never equal to the reference.

import { DAY_MS, SECOND_MS } from './civil-time.js';
import type { CompiledCron } from './compiled-cron.js';
import { nextMatchingWall } from './wall-search.js';
import type { ZoneRules } from './zone-offsets.js';

interface ResolvedWall {
  readonly instantMs: number;
  /** Set when the wall time was skipped by spring-forward: the wall time the gap ends at. */
  readonly gapEndWallMs?: number;
}

/** Instant of a wall time under the rules above (gap: pre-transition offset; overlap: first). */
export function resolveWall(zone: ZoneRules, wallMs: number): ResolvedWall {
  // Offsets a day either side of the wall reading bracket any single transition near it
  // (zone offsets stay within +-14 h, so wallMs +- 1 day is on the right side of it).
  const offsetBefore = zone.offsetAt(wallMs - DAY_MS);
  const offsetAfter = zone.offsetAt(wallMs + DAY_MS);
  const early = wallMs - offsetBefore;
  if (offsetBefore === offsetAfter) return { instantMs: early };
  const late = wallMs - offsetAfter;
  const earlyValid = zone.offsetAt(early) === offsetBefore;
  const lateValid = zone.offsetAt(late) === offsetAfter;
  if (earlyValid && lateValid) return { instantMs: Math.min(early, late) };
  if (earlyValid) return { instantMs: early };
  if (lateValid) return { instantMs: late };
  // Skipped by spring-forward: `early` lies after the jump (offsetAfter > offsetBefore).
  const jump = zone.firstTransitionAfter(late);
  if (jump === undefined) return { instantMs: early };
  return { instantMs: early, gapEndWallMs: jump.atMs + jump.offsetAfterMs };
}

export function nextFireInstant(
  cron: CompiledCron,
  zone: ZoneRules,
  afterEpochMs: number,
): number | null {
  const reference = Math.floor(afterEpochMs / SECOND_MS) * SECOND_MS;
  if (zone.isUtc) return nextMatchingWall(cron, reference + SECOND_MS);

  let best = Number.POSITIVE_INFINITY;
  let fromWall = reference + zone.offsetAt(reference) + SECOND_MS;
  const transition = zone.lastTransitionAtOrBefore(reference);
  if (transition !== undefined) {
    const shift = transition.offsetAfterMs - transition.offsetBeforeMs;
    if (shift < 0 && reference < transition.atMs - shift) {
      // Inside the second pass of a repeated hour: its wall times already fired on the first
      // pass, so the search starts at the wall time where the repetition ends.
      fromWall = Math.max(fromWall, transition.atMs + transition.offsetBeforeMs);
    } else if (shift > 0 && reference < transition.atMs + shift) {
      // Just after a jump: skipped wall times not yet reached by their shifted instant fire.
      const wall = nextMatchingWall(cron, reference + transition.offsetBeforeMs + SECOND_MS);
      if (wall !== null && wall < transition.atMs + transition.offsetAfterMs) {
        best = wall - transition.offsetBeforeMs;
      }
    }
  }

  const wall = nextMatchingWall(cron, fromWall);
  if (wall !== null) {
    const resolved = resolveWall(zone, wall);
    // A wall time past the search start always maps after the reference (see the rules
    // above), so the first one found wins, except a skipped one: a real wall time just after
    // the jump can map earlier than a shifted one (Lord Howe: 02:20 shifts to 02:50, while
    // 02:40 exists).
    best = Math.min(best, resolved.instantMs);
    if (resolved.gapEndWallMs !== undefined) {
      const afterGap = nextMatchingWall(cron, resolved.gapEndWallMs);
      if (afterGap !== null) best = Math.min(best, resolveWall(zone, afterGap).instantMs);
    }
  }
  return best === Number.POSITIVE_INFINITY ? null : best;
}

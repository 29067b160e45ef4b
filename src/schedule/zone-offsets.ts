// UTC offsets of IANA zones, read from Intl once and cached as transition lists; must not
// format or parse dates for display (that is the caller's business).
//
// The cache is the one piece of module-level state in schedule/: a memo of a pure function
// (zone name -> offsets), shared so 100k jobs in one zone cost one set of Intl calls. It has no
// observable behaviour besides speed.
//
// Start-up cost: the first `new Intl.DateTimeFormat` with a time zone loads ICU's zone data
// (~20 ms), which `yacron2 -v` never needs. Names are checked against
// Intl.supportedValuesOf('timeZone') (~3 ms, canonical names), the UTC aliases are known without
// Intl, and a zone's formatter is created when its offsets are first needed. Only a name outside
// the list (an alias such as 'US/Eastern', or 'Etc/GMT+5') asks a formatter at once.

import { YacronError } from '../common/errors.js';
import { DAY_MS, SECOND_MS, wallMsOf } from './civil-time.js';

/** One offset change: instants >= atMs use offsetAfterMs. */
export interface ZoneTransition {
  readonly atMs: number;
  readonly offsetBeforeMs: number;
  readonly offsetAfterMs: number;
}

/** Offsets of one chunk [k*CHUNK_MS, (k+1)*CHUNK_MS); transitions have atMs in (start, end]. */
interface OffsetChunk {
  readonly startOffsetMs: number;
  readonly transitions: readonly ZoneTransition[];
}

// Offsets are sampled once a day and every change is bisected to the second. Two changes
// inside one day that cancel out would be missed; no zone has had such a pair since 1970.
const SAMPLE_MS = DAY_MS;
const SAMPLES_PER_CHUNK = 128;
const CHUNK_MS = SAMPLES_PER_CHUNK * SAMPLE_MS;

/** Names Intl resolves to 'UTC' (lower case; Intl matches zone names case-insensitively). */
const UTC_ALIASES = new Set(
  [
    'UTC',
    'Etc/UTC',
    'Etc/GMT',
    'GMT',
    'Etc/Universal',
    'Etc/Zulu',
    'UCT',
    'Etc/UCT',
    'Universal',
    'Zulu',
    'Etc/GMT0',
    'GMT0',
    'Etc/Greenwich',
    'Greenwich',
    'GMT+0',
    'GMT-0',
    'Etc/GMT+0',
    'Etc/GMT-0',
  ].map((name) => name.toLowerCase()),
);

export class ZoneRules {
  /** Canonical IANA name as Intl resolves it (e.g. 'UTC', 'America/New_York'). */
  readonly name: string;
  /** True when the zone is UTC itself: offsets are always 0 and no Intl call is made. */
  readonly isUtc: boolean;
  /** Created on the first offset look-up (never for UTC): it costs ~20 ms the first time. */
  #formatter: Intl.DateTimeFormat | null;
  readonly #chunks = new Map<number, OffsetChunk>();

  constructor(name: string, formatter: Intl.DateTimeFormat | null = null) {
    this.name = name;
    this.isUtc = UTC_ALIASES.has(name.toLowerCase());
    this.#formatter = formatter;
  }

  /** Offset (wall minus UTC, in ms) in effect at an instant. */
  offsetAt(epochMs: number): number {
    if (this.isUtc) return 0;
    const chunk = this.#chunk(Math.floor(epochMs / CHUNK_MS));
    let offset = chunk.startOffsetMs;
    for (const transition of chunk.transitions) {
      if (epochMs < transition.atMs) break;
      offset = transition.offsetAfterMs;
    }
    return offset;
  }

  /** The latest transition at or before the instant, looking back at least one chunk. */
  lastTransitionAtOrBefore(epochMs: number): ZoneTransition | undefined {
    if (this.isUtc) return undefined;
    const index = Math.floor(epochMs / CHUNK_MS);
    for (const k of [index, index - 1]) {
      const transitions = this.#chunk(k).transitions;
      for (let i = transitions.length - 1; i >= 0; i--) {
        const transition = transitions[i];
        if (transition !== undefined && transition.atMs <= epochMs) return transition;
      }
    }
    return undefined;
  }

  /** The earliest transition strictly after the instant, looking ahead at least one chunk. */
  firstTransitionAfter(epochMs: number): ZoneTransition | undefined {
    if (this.isUtc) return undefined;
    const index = Math.floor(epochMs / CHUNK_MS);
    for (const k of [index, index + 1]) {
      for (const transition of this.#chunk(k).transitions) {
        if (transition.atMs > epochMs) return transition;
      }
    }
    return undefined;
  }

  #chunk(index: number): OffsetChunk {
    let chunk = this.#chunks.get(index);
    if (chunk === undefined) {
      chunk = this.#buildChunk(index);
      this.#chunks.set(index, chunk);
    }
    return chunk;
  }

  #buildChunk(index: number): OffsetChunk {
    const start = index * CHUNK_MS;
    const transitions: ZoneTransition[] = [];
    const startOffsetMs = this.#intlOffsetMs(start);
    let previousAt = start;
    let previousOffset = startOffsetMs;
    for (let j = 1; j <= SAMPLES_PER_CHUNK; j++) {
      const at = start + j * SAMPLE_MS;
      const offset = this.#intlOffsetMs(at);
      let from = previousAt;
      let fromOffset = previousOffset;
      // Bisect every change inside (from, at]; loops again if a second change hides there.
      while (fromOffset !== offset) {
        const transition = this.#bisect(from, fromOffset, at);
        transitions.push(transition);
        from = transition.atMs;
        fromOffset = transition.offsetAfterMs;
        if (from >= at) break;
      }
      previousAt = at;
      previousOffset = offset;
    }
    return { startOffsetMs, transitions };
  }

  /** First whole second in (lowMs, highMs] whose offset differs from lowOffsetMs. */
  #bisect(lowMs: number, lowOffsetMs: number, highMs: number): ZoneTransition {
    let low = lowMs;
    let high = highMs;
    let highOffset = this.#intlOffsetMs(high);
    while (high - low > SECOND_MS) {
      const middle = low + Math.floor((high - low) / 2 / SECOND_MS) * SECOND_MS;
      const middleOffset = this.#intlOffsetMs(middle);
      if (middleOffset === lowOffsetMs) {
        low = middle;
      } else {
        high = middle;
        highOffset = middleOffset;
      }
    }
    return { atMs: high, offsetBeforeMs: lowOffsetMs, offsetAfterMs: highOffset };
  }

  #intlOffsetMs(epochMs: number): number {
    const instant = Math.floor(epochMs / SECOND_MS) * SECOND_MS;
    let year = 1970;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    this.#formatter ??= createFormatter(this.name);
    for (const part of this.#formatter.formatToParts(instant)) {
      const value = Number(part.value);
      switch (part.type) {
        case 'year':
          year = value;
          break;
        case 'month':
          month = value;
          break;
        case 'day':
          day = value;
          break;
        case 'hour':
          hour = value === 24 ? 0 : value; // some ICU builds print midnight as 24
          break;
        case 'minute':
          minute = value;
          break;
        case 'second':
          second = value;
          break;
        case 'dayPeriod':
        case 'era':
        case 'fractionalSecond':
        case 'literal':
        case 'timeZoneName':
        case 'unknown':
        case 'weekday':
          break; // not asked for, or separators
      }
    }
    return wallMsOf({ year, month, day, hour, minute, second }) - instant;
  }
}

const zoneRulesByName = new Map<string, ZoneRules>();

function createFormatter(name: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    numberingSystem: 'latn',
  });
}

let canonicalByLowerName: Map<string, string> | null = null;

/**
 * Intl's canonical zone names by lower-cased name. A listed name resolves to itself (a test checks
 * it against resolvedOptions() for the whole list), so these need no formatter to validate.
 */
function listedZones(): Map<string, string> {
  if (canonicalByLowerName === null) {
    canonicalByLowerName = new Map();
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      canonicalByLowerName.set(zone.toLowerCase(), zone);
    }
  }
  return canonicalByLowerName;
}

/** Intl's canonical name for a zone name and, when finding it took one, the formatter. */
function canonicalZone(name: string): { name: string; formatter: Intl.DateTimeFormat | null } {
  const lower = name.toLowerCase();
  if (UTC_ALIASES.has(lower)) return { name: 'UTC', formatter: null };
  const listed = listedZones().get(lower);
  if (listed !== undefined) return { name: listed, formatter: null };
  // An alias or a name ICU knows outside the list: ask Intl (throws RangeError when unknown).
  if (name.trim() === '') throw new RangeError('empty time zone name');
  // Intl on Node 24+ also takes UTC offsets ('+01:00'), which are no IANA zone (nor the
  // reference's): refused on every Node major alike. 'Etc/GMT+1' is IANA and still passes.
  if (/^[+-]/.test(name.trim())) throw new RangeError('a UTC offset is not a time zone name');
  const formatter = createFormatter(name);
  return { name: formatter.resolvedOptions().timeZone, formatter };
}

/** Cached offset rules for a zone name; throws YC_ERR_TIMEZONE_UNKNOWN for unknown names. */
export function zoneRulesFor(name: string): ZoneRules {
  const cached = zoneRulesByName.get(name);
  if (cached !== undefined) return cached;
  let canonical: { name: string; formatter: Intl.DateTimeFormat | null };
  try {
    canonical = canonicalZone(name);
  } catch (error) {
    throw new YacronError('YC_ERR_TIMEZONE_UNKNOWN', `unknown timezone: ${name}`, {
      cause: error,
    });
  }
  const rules =
    zoneRulesByName.get(canonical.name) ?? new ZoneRules(canonical.name, canonical.formatter);
  zoneRulesByName.set(canonical.name, rules);
  zoneRulesByName.set(name, rules);
  return rules;
}

/** Throws YC_ERR_TIMEZONE_UNKNOWN unless Intl knows the zone. */
export function assertTimezone(name: string): void {
  zoneRulesFor(name);
}

/**
 * The name to show for a zone the user wrote: Intl's spelling when it only fixes letter case
 * ('utc' -> 'UTC'), otherwise the user's own (an alias such as 'US/Eastern' stays as written).
 */
export function displayTimezoneName(name: string): string {
  const canonical = zoneRulesFor(name).name;
  return canonical.toLowerCase() === name.toLowerCase() ? canonical : name;
}

/** The zone this process runs in, as Intl reports it ('UTC' when Intl has none). */
export function localTimezone(): string {
  const resolved = new Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined;
  return resolved === undefined || resolved === '' ? 'UTC' : resolved;
}

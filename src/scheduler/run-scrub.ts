// One run's scrub (docs/security.md "Secrets"): the values the run-environment hook says no sink
// may show — the run's job-API token from the launch, its staged secrets once they are resolved —
// become [REDACTED] in every output line as it is read (the daemon's echo, the live lines, the
// retained text) and in the outcome before the run is settled (so in the failure log, the
// reports and the archive). Built only for a run that has values: a run without the job API
// pays nothing per line.
// Must not: wait for the staged values (a line or an outcome is scrubbed of what is known then).
import { replaceOrder, replaceValues } from '../common/index.js';
import type { CapturedStream, RunOutcome } from '../runner/index.js';
import type { RunEnvironment } from './ports.js';

/**
 * A line of a multi-line value (a key file) shorter than this is not scrubbed from single lines
 * on its own: `}` or an armour line would mangle unrelated output. Whole texts lose the whole value.
 */
export const MIN_VALUE_LINE_CHARS = 16;

export class RunScrub {
  /** Every value, longest first: for whole texts. */
  #whole: readonly string[] = [];
  /** The single-line values and the long lines of the multi-line ones: for one line. */
  #lines: readonly string[] = [];

  constructor(environment: RunEnvironment) {
    this.#add(environment.secretValues);
    environment.stagedSecretValues?.then(
      (values) => this.#add(values),
      () => undefined,
    );
  }

  /** One output line (with its newline) scrubbed of the values known now. */
  readonly line = (line: string): string => replaceValues(line, this.#lines);

  /** The outcome with its texts and its environment's values scrubbed of the values known now. */
  outcome(outcome: RunOutcome): RunOutcome {
    const values = this.#whole;
    if (values.length === 0) return outcome;
    const environment = outcome.environment === null ? null : { ...outcome.environment };
    if (environment !== null) {
      for (const key of Object.keys(environment)) {
        environment[key] = replaceValues(environment[key] as string, values);
      }
    }
    return {
      ...outcome,
      stdout: scrubStream(outcome.stdout, values),
      stderr: scrubStream(outcome.stderr, values),
      environment,
    };
  }

  #add(values: readonly string[]): void {
    if (values.length === 0) return;
    this.#whole = replaceOrder([...this.#whole, ...values]);
    const lines: string[] = [];
    for (const value of this.#whole) {
      if (!value.includes('\n')) lines.push(value);
      else
        lines.push(...value.split(/\r?\n/).filter((part) => part.length >= MIN_VALUE_LINE_CHARS));
    }
    this.#lines = replaceOrder(lines);
  }
}

/** The run's scrub, or null when the hook gave nothing to scrub (no job API for it). */
export function runScrubOf(environment: RunEnvironment | undefined): RunScrub | null {
  if (environment === undefined) return null;
  if (environment.secretValues.length === 0 && environment.stagedSecretValues === null) return null;
  return new RunScrub(environment);
}

function scrubStream(
  stream: CapturedStream | null,
  values: readonly string[],
): CapturedStream | null {
  if (stream === null) return null;
  const text = replaceValues(stream.text, values);
  return text === stream.text ? stream : { ...stream, text };
}

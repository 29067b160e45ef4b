// Test support: a RunOutcome from one flat record, so a fixture can vary `kind` as a parameter
// and still get a member of the discriminated union. The fields each kind pins are filled in
// when the record leaves them null (a failed run's reason, a killed run's cancel reason, a spawn
// failure's message; a spawn failure has no pid); a contradiction is a fixture bug and throws.
import type { RunOutcome, RunOutcomeBase, RunOutcomeKind } from './types.js';

export interface LooseOutcome extends RunOutcomeBase {
  readonly kind: RunOutcomeKind;
}

export function runOutcome(fields: LooseOutcome): RunOutcome {
  const { failReason, cancelReason, spawnError } = fields;
  if (fields.kind === 'spawn-failed') {
    return { ...fields, kind: 'spawn-failed', pid: null, spawnError: spawnError ?? 'spawn failed' };
  }
  if (spawnError !== null) throw new Error(`fixture: a ${fields.kind} run with a spawnError`);
  const ran = { ...fields, spawnError: null };
  switch (fields.kind) {
    case 'succeeded':
      if (failReason !== null) throw new Error('fixture: a succeeded run with a failReason');
      return { ...ran, kind: 'succeeded', failReason };
    case 'failed':
      return { ...ran, kind: 'failed', failReason: failReason ?? 'failsWhen=nonzeroReturn' };
    case 'timed-out':
      return { ...ran, kind: 'timed-out' };
    case 'killed':
      return { ...ran, kind: 'killed', cancelReason: cancelReason ?? 'cancelled' };
  }
}

// GET /jobs's `concurrencyScope` + `slot` on a `concurrencyScope: cluster` job (docs/http-api.md
// "GET /jobs"): whether this node holds the job's cluster slot now, beside the election's keys.
// Must not: touch the store (a request reads what this node's slot tenures know).
import type { ClusterApiView } from '../http/index.js';

/**
 * The API view with GET /jobs's `concurrencyScope` + `slot` on `concurrencyScope: cluster` jobs
 * (docs/http-api.md "GET /jobs"), in front of the election's keys; `heldFor` reads the slot this
 * node holds now (the durable backend is rebuilt on reloads, so it is read per request).
 */
export function withSlotFields(
  api: ClusterApiView,
  heldFor: (job: string) => { readonly holder: string; readonly refs: number } | undefined,
): ClusterApiView {
  return {
    ...api,
    jobFields(job) {
      const fields = api.jobFields(job);
      if (job.concurrencyScope !== 'cluster') return fields;
      const held = heldFor(job.name);
      return {
        concurrencyScope: 'cluster',
        slot: { held: held !== undefined, holder: held?.holder ?? null, refs: held?.refs ?? 0 },
        ...fields,
      };
    },
  };
}

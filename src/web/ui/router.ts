// The URL hash as page state (docs/dashboard.md "Job drawer"): `#job/<name>[/<tab>]` opens a
// job's drawer, `#dag/<name>/<runKey>` a DAG run's drawer (`#dag/<name>` its latest run), `#tv`
// the wallboard; anything else shows the table alone. Names and run keys are percent-encoded
// so any of them (slashes included) round-trips.

export type Route =
  | { readonly kind: 'table' }
  | { readonly kind: 'job'; readonly job: string; readonly tab: string | null }
  | { readonly kind: 'dag'; readonly dag: string; readonly runKey: string | null }
  | { readonly kind: 'wallboard' };

export function parseHash(hash: string): Route {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  if (text === 'tv') return { kind: 'wallboard' };
  if (text.startsWith('job/')) {
    const [encoded = '', tab] = text.slice(4).split('/');
    try {
      const job = decodeURIComponent(encoded);
      if (job !== '')
        return { kind: 'job', job, tab: tab === undefined || tab === '' ? null : tab };
    } catch {
      // A malformed escape: fall back to the table.
    }
  }
  if (text.startsWith('dag/')) {
    const [dag = '', runKey = ''] = text.slice(4).split('/');
    try {
      const name = decodeURIComponent(dag);
      if (name !== '')
        return {
          kind: 'dag',
          dag: name,
          runKey: runKey === '' ? null : decodeURIComponent(runKey),
        };
    } catch {
      // A malformed escape: fall back to the table.
    }
  }
  return { kind: 'table' };
}

export function formatHash(route: Route): string {
  switch (route.kind) {
    case 'table':
      return '';
    case 'wallboard':
      return '#tv';
    case 'job':
      return `#job/${encodeURIComponent(route.job)}${route.tab === null ? '' : `/${route.tab}`}`;
    case 'dag':
      return `#dag/${encodeURIComponent(route.dag)}${route.runKey === null ? '' : `/${encodeURIComponent(route.runKey)}`}`;
  }
}

// One launch request of the spawn helper's protocol (docs/performance.md "The native helper's
// protocol") with the defaults the helper tests start from: the base environment unchanged,
// nothing captured, no user or group switch. Test-only.
import type { HelperLaunch } from './spawn-helper-protocol.js';

/** A launch of `file` with `args`; `extra` overrides fields (a hostile value too, in tests). */
export function helperLaunch<E extends object = Partial<HelperLaunch>>(
  id: number,
  file: string,
  args: readonly string[],
  extra?: E,
): HelperLaunch & E {
  const base: HelperLaunch = {
    id,
    file,
    args,
    env: { kind: 'delta', unset: [], set: {} },
    captureStdout: false,
    captureStderr: false,
    uid: null,
    gid: null,
  };
  return Object.assign(base, extra);
}

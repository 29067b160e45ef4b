// Where the job API listens (docs/job-state.md "Enabling it", `listen`): 127.0.0.1 on an
// OS-assigned port unless configured; a non-loopback host only with allowNonLoopbackBind (the
// config refuses it too; this is the second line of defence, since the endpoint hands out tokens
// and secrets over plaintext HTTP). Pure.
import { isIP } from 'node:net';
import type { ResolvedJobApi } from '../config/index.js';

export const DEFAULT_HOST = '127.0.0.1';

/** `localhost` or a literal loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  switch (isIP(bare)) {
    case 4:
      return bare.startsWith('127.');
    case 6: {
      const lower = bare.toLowerCase();
      if (lower === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(lower)) return true;
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
      return mapped?.[1]?.startsWith('127.') === true;
    }
    default:
      return false;
  }
}

export interface BindTarget {
  readonly host: string;
  readonly port: number;
}

/** The host and port to bind; a refusal message when the bind is not allowed. */
export function bindTarget(settings: ResolvedJobApi): BindTarget | { readonly refused: string } {
  const host = settings.listen?.host ?? DEFAULT_HOST;
  const port = settings.listen?.port ?? 0;
  if (!isLoopbackHost(host) && !settings.allowNonLoopbackBind) {
    return {
      refused: `Cannot start the job API on ${host}: a non-loopback host needs state.jobApi.allowNonLoopbackBind: true (the endpoint serves run tokens and secrets over plaintext HTTP)`,
    };
  }
  return { host, port };
}

/** `http://<host>:<port>`, IPv6 hosts in brackets. */
export function formatUrl(host: string, port: number): string {
  return isIP(host) === 6 ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

// Who may call the control API from a browser (docs/http-api.md "Who may call it"). Two checks
// run before authentication, on every listener of one app:
// - DNS rebinding: a TCP listener answers only for Host names it can legitimately be reached by:
//   IP literals (a rebinding attack needs a name), `localhost` and `*.localhost` (browsers pin
//   them to loopback), the listener's own host, and `web.allowedHosts` (`*` = any). A unix
//   socket is not reachable from a browser: no Host check.
// - Cross-site requests: an unsafe method (anything but GET, HEAD, OPTIONS) is refused when the
//   browser says it comes from another site: `Sec-Fetch-Site` other than same-origin / none, or,
//   when that header is absent, an `Origin` that is "null" or names another host. A request
//   with neither header (curl, scripts) is not a browser's and goes on to authentication.
// Must not: log request headers whole (an Authorization header is among them).
import { isIP } from 'node:net';
import type { WebListener } from '../config/index.js';

export type OriginVerdict =
  | { readonly kind: 'allowed' }
  | { readonly kind: 'host-refused'; readonly host: string }
  | { readonly kind: 'cross-site' };

export interface OriginPolicy {
  check(
    method: string,
    host: string | undefined,
    origin: string | undefined,
    fetchSite: string | undefined,
  ): OriginVerdict;
}

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
const SAME_SITE_VALUES: ReadonlySet<string> = new Set(['same-origin', 'none']);
const ALLOWED: OriginVerdict = { kind: 'allowed' };

/** The host name of a Host header or URL authority: lower-case, no port, no trailing dot. */
export function hostNameOf(authority: string): string {
  const lower = authority.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end === -1 ? lower : lower.slice(1, end);
  }
  const colon = lower.indexOf(':');
  return (colon === -1 ? lower : lower.slice(0, colon)).replace(/\.$/, '');
}

export function createOriginPolicy(
  listener: WebListener,
  allowedHosts: readonly string[],
): OriginPolicy {
  const anyHost = listener.kind !== 'tcp' || allowedHosts.includes('*');
  // Names a browser may show in Origin for this API behind a proxy that rewrites Host.
  const configuredNames = new Set(allowedHosts);
  const names = new Set(allowedHosts);
  if (listener.kind === 'tcp') names.add(hostNameOf(listener.host));

  const hostAllowed = (host: string | undefined): boolean => {
    // HTTP/1.0 without Host: not something a browser sends.
    if (anyHost || host === undefined || host === '') return true;
    const name = hostNameOf(host);
    if (isIP(name) !== 0) return true;
    if (name === 'localhost' || name.endsWith('.localhost')) return true;
    return names.has(name);
  };

  const crossSite = (
    host: string | undefined,
    origin: string | undefined,
    fetchSite: string | undefined,
  ): boolean => {
    if (fetchSite !== undefined) return !SAME_SITE_VALUES.has(fetchSite.trim().toLowerCase());
    if (origin === undefined) return false;
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return true; // "null" (a sandboxed or file: page) or garbage
    }
    if (host !== undefined && originHost === host.trim().toLowerCase()) return false;
    return !configuredNames.has(hostNameOf(originHost));
  };

  return {
    check(method, host, origin, fetchSite) {
      if (!hostAllowed(host)) return { kind: 'host-refused', host: host ?? '' };
      if (!SAFE_METHODS.has(method) && crossSite(host, origin, fetchSite)) {
        return { kind: 'cross-site' };
      }
      return ALLOWED;
    },
  };
}

// Bearer authentication of the control API (docs/http-api.md "Authentication"): the Authorization
// header is split at its first space, the scheme compared case-insensitively to `bearer`, the token
// in constant time. Exemptions are by exact path and only exist when a token is configured.
import { createHash, timingSafeEqual } from 'node:crypto';

export interface AuthPolicy {
  /** True when the request may proceed. */
  allows(method: string, url: string, authorization: string | undefined): boolean;
}

export interface AuthOptions {
  /** null = authentication off. */
  readonly token: string | null;
  /** `GET /` is public (the page holds no data) when the dashboard is served. */
  readonly uiPublic: boolean;
  /** `/metrics` is public with `web.metrics.public: true`. */
  readonly metricsPublic: boolean;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The request path without its query string. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export function createAuthPolicy(options: AuthOptions): AuthPolicy {
  const { token } = options;
  if (token === null) return { allows: () => true };
  // Comparing fixed-length digests keeps the time independent of where the tokens differ and of
  // the presented token's length.
  const expected = digest(token);
  return {
    allows(method, url, authorization) {
      const path = pathOf(url);
      if (path === '/' && options.uiPublic && (method === 'GET' || method === 'HEAD')) return true;
      if (path === '/metrics' && options.metricsPublic) return true;
      if (authorization === undefined) return false;
      const space = authorization.indexOf(' ');
      if (space === -1) return false;
      if (authorization.slice(0, space).toLowerCase() !== 'bearer') return false;
      return timingSafeEqual(digest(authorization.slice(space + 1)), expected);
    },
  };
}

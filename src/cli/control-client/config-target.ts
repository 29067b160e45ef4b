// What `yacron2 logs -c CONFIG` takes from the daemon's configuration (docs/cli.md "yacron2
// logs"): the control API's address from `web.listen` and the bearer token from `web.authToken`,
// resolved by the config loader exactly as the daemon resolves it (value, fromFile, fromEnvVar).
// Each part is used only where no flag or variable gave it (api-target.ts), so a problem with a
// part is a value here, reported only when that part is needed. Pure.
// Must not: put the token in any message.
import type { ResolvedWeb, WebListener } from '../../config/index.js';

/** One part of the target as the configuration gives it, or why it cannot. */
export type ConfigPart<T> =
  { readonly kind: 'ok'; readonly value: T } | { readonly kind: 'error'; readonly message: string };

export interface ConfigTarget {
  /** The configuration path as given, for messages. */
  readonly path: string;
  /** A URL resolveTarget parses like `--url`. */
  readonly url: ConfigPart<string>;
  /** The resolved token; null: the daemon asks for none. */
  readonly token: ConfigPart<string | null>;
}

/** Wildcard bind addresses, reached through the loopback of the same family. */
const WILDCARD_HOSTS: Readonly<Record<string, string>> = {
  '0.0.0.0': '127.0.0.1',
  '::': '::1',
};

/** The URL a client on this host reaches a listener at; undefined for one it cannot use. */
function clientUrl(listener: WebListener): string | undefined {
  switch (listener.kind) {
    case 'tcp': {
      if (listener.port === 0) return undefined;
      const host = WILDCARD_HOSTS[listener.host] ?? listener.host;
      return `http://${host.includes(':') ? `[${host}]` : host}:${listener.port}`;
    }
    case 'unix':
      return `unix://${listener.path}`;
    case 'ignored':
      return undefined;
  }
}

/**
 * The target `web` offers: the first listener a client can use (a TCP one before a unix socket,
 * as a TCP listener needs no file permissions), and the token. `web` null: no `web` section.
 */
export function configTarget(path: string, web: ResolvedWeb | null): ConfigTarget {
  if (web === null) {
    const message = `the configuration at ${path} has no web section: the daemon serves no control API (set web.listen, or pass --url)`;
    return { path, url: { kind: 'error', message }, token: { kind: 'ok', value: null } };
  }
  const usable = (kind: 'tcp' | 'unix'): string | undefined =>
    web.listen
      .filter((listener) => listener.kind === kind)
      .map(clientUrl)
      .find((url) => url !== undefined);
  const url = usable('tcp') ?? usable('unix');
  return {
    path,
    url:
      url === undefined
        ? { kind: 'error', message: noListenerMessage(path, web.listen) }
        : { kind: 'ok', value: url },
    token:
      web.error === null
        ? { kind: 'ok', value: web.authToken }
        : { kind: 'error', message: `${web.error} (in ${path})` },
  };
}

function noListenerMessage(path: string, listen: readonly WebListener[]): string {
  const where = `web.listen in ${path}`;
  if (listen.length === 0)
    return `${where} is empty: the daemon serves no control API (pass --url)`;
  const portZero = listen.some((listener) => listener.kind === 'tcp' && listener.port === 0);
  if (portZero) {
    return `${where} binds port 0 (a port the daemon picks at start, which the configuration does not say): pass --url`;
  }
  return `${where} has no listener a client can reach (${listen.map((listener) => listener.url).join(', ')}): pass --url`;
}

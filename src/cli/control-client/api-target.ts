// Where `yacron2 logs` reaches the daemon's control API and with which bearer token
// (docs/cli.md "yacron2 logs"): `--url` / `YACRON2_API_URL`, else the configuration's listener
// (`-c`), else the quick start's listener; `--token`, `--token-file`, `YACRON2_API_TOKEN`,
// `YACRON2_API_TOKEN_FILE`, the configuration's `web.authToken`, in that order, else none: flags,
// then the environment, then the configuration. A token file is read as the daemon reads
// `web.authToken.fromFile` (surrounding whitespace removed). Pure but for the injected file read.
// Must not: put the token (or a token file's content) in any message.
import type { ConfigTarget } from './config-target.js';

/** The `web.listen` of docs/http-api.md "Quick start". */
export const DEFAULT_API_URL = 'http://127.0.0.1:8080';

export const API_URL_ENV = 'YACRON2_API_URL';
export const API_TOKEN_ENV = 'YACRON2_API_TOKEN';
export const API_TOKEN_FILE_ENV = 'YACRON2_API_TOKEN_FILE';

/** A parsed control API address: a TCP base URL (with an optional path prefix) or a socket. */
export type ApiAddress =
  | { readonly kind: 'tcp'; readonly base: URL }
  | { readonly kind: 'unix'; readonly socketPath: string };

export interface ApiTarget {
  /** As given, for messages. */
  readonly url: string;
  readonly address: ApiAddress;
  /** null: send no Authorization header. */
  readonly token: string | null;
  /** Where the token came from, for the 401 message (`--token`, `YACRON2_API_TOKEN`, ...). */
  readonly tokenSource: string | null;
}

export interface TargetFlags {
  readonly url?: string;
  readonly token?: string;
  readonly tokenFile?: string;
}

export type TargetResult =
  | { readonly kind: 'ok'; readonly target: ApiTarget }
  | { readonly kind: 'usage'; readonly message: string }
  | { readonly kind: 'error'; readonly message: string };

/** `config`: what `-c` offers (config-target.ts); absent without `-c`. */
export function resolveTarget(
  flags: TargetFlags,
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string,
  config?: ConfigTarget,
): TargetResult {
  const fromEnv = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const given = resolveUrl(flags, fromEnv, config);
  if (given.kind === 'error') return given;
  const { url, source: urlSource } = given;
  const address = parseApiAddress(url);
  if (address.kind === 'invalid') {
    // A flag or a variable is a usage error; a listener the config holds is the config's.
    const message = `${urlSource} ${address.reason}, got '${url}'`;
    return { kind: given.fromConfig ? 'error' : 'usage', message };
  }
  const token = resolveToken(flags, fromEnv, readFile, config);
  if (token.kind === 'error') return token;
  if (token.value !== null && !isHeaderSafe(token.value)) {
    return {
      kind: 'error',
      message: `the token from ${token.source} holds a control character or a space`,
    };
  }
  return {
    kind: 'ok',
    target: { url, address: address.address, token: token.value, tokenSource: token.source },
  };
}

type UrlResult =
  | {
      readonly kind: 'ok';
      readonly url: string;
      /** For messages: `--url`, the variable, or the configuration's field. */
      readonly source: string;
      readonly fromConfig: boolean;
    }
  | { readonly kind: 'error'; readonly message: string };

function resolveUrl(
  flags: TargetFlags,
  fromEnv: (name: string) => string | undefined,
  config: ConfigTarget | undefined,
): UrlResult {
  const given = (url: string, source: string, fromConfig = false): UrlResult => ({
    kind: 'ok',
    url,
    source,
    fromConfig,
  });
  if (flags.url !== undefined) return given(flags.url, '--url');
  const envUrl = fromEnv(API_URL_ENV);
  if (envUrl !== undefined) return given(envUrl, API_URL_ENV);
  if (config === undefined) return given(DEFAULT_API_URL, 'the default URL');
  if (config.url.kind === 'error') return config.url;
  return given(config.url.value, `web.listen in ${config.path}`, true);
}

type TokenResult =
  | { readonly kind: 'ok'; readonly value: string | null; readonly source: string | null }
  | { readonly kind: 'error'; readonly message: string };

function resolveToken(
  flags: TargetFlags,
  fromEnv: (name: string) => string | undefined,
  readFile: (path: string) => string,
  config: ConfigTarget | undefined,
): TokenResult {
  if (flags.token !== undefined) {
    if (flags.token === '') return { kind: 'error', message: '--token is empty' };
    return { kind: 'ok', value: flags.token, source: '--token' };
  }
  if (flags.tokenFile !== undefined)
    return tokenFromFile(flags.tokenFile, '--token-file', readFile);
  const envToken = fromEnv(API_TOKEN_ENV);
  if (envToken !== undefined) return { kind: 'ok', value: envToken, source: API_TOKEN_ENV };
  const envFile = fromEnv(API_TOKEN_FILE_ENV);
  if (envFile !== undefined) return tokenFromFile(envFile, API_TOKEN_FILE_ENV, readFile);
  if (config === undefined) return { kind: 'ok', value: null, source: null };
  if (config.token.kind === 'error') return config.token;
  const value = config.token.value;
  return { kind: 'ok', value, source: value === null ? null : `web.authToken in ${config.path}` };
}

function tokenFromFile(
  path: string,
  source: string,
  readFile: (path: string) => string,
): TokenResult {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    return { kind: 'error', message: `cannot read the token file ${path} (${source}): ${code}` };
  }
  const token = text.trim();
  if (token === '') {
    return { kind: 'error', message: `the token file ${path} (${source}) is empty` };
  }
  return { kind: 'ok', value: token, source: `${source} ${path}` };
}

/** Printable ASCII without spaces: what a bearer token can be sent as. */
function isHeaderSafe(token: string): boolean {
  return /^[\x21-\x7e]+$/.test(token);
}

/** `http://HOST:PORT[/prefix]` or `unix:///absolute/path` (docs/http-api.md "Listen URLs"). */
export function parseApiAddress(
  url: string,
):
  | { readonly kind: 'ok'; readonly address: ApiAddress }
  | { readonly kind: 'invalid'; readonly reason: string } {
  if (url.startsWith('unix://')) {
    const socketPath = url.slice('unix://'.length);
    if (!socketPath.startsWith('/')) {
      return { kind: 'invalid', reason: 'must name an absolute socket path (unix:///path)' };
    }
    return { kind: 'ok', address: { kind: 'unix', socketPath } };
  }
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    return { kind: 'invalid', reason: 'must be an http:// or unix:// URL' };
  }
  if (base.protocol === 'https:') {
    return { kind: 'invalid', reason: 'must be http:// (the control API has no TLS)' };
  }
  if (base.protocol !== 'http:') {
    return { kind: 'invalid', reason: 'must be an http:// or unix:// URL' };
  }
  if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '') {
    return { kind: 'invalid', reason: 'must not carry credentials, a query or a fragment' };
  }
  return { kind: 'ok', address: { kind: 'tcp', base } };
}

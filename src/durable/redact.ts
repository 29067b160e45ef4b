// Scrubs recognisable secrets out of captured job output before it is archived (spec "Output
// archival and secret redaction"). Pure string work: no I/O, never throws, linear in the input.
// Best-effort pattern matching, not a guarantee; it must not mangle output it does not recognise.
//
// Every rule finds spans on the ORIGINAL text; overlapping or touching spans merge and each
// merged span becomes `***REDACTED***` (the reference's marker; one per line a span covers, so
// line breaks survive and archived lines keep their count). Only the secret part goes: keys,
// header names, auth schemes, URL user names, well-known token prefixes and PEM armour lines
// stay, so the line still reads.
//
// 1. Assignments whose key looks secret-bearing (isSecretKey below): `KEY=v`, `KEY: v`, `KEY := v`,
//    `KEY => v`, `export KEY=v`, `--key=v`, JSON/Python `"key": "v"`, XML `<key>v</key>`, and a
//    flag followed by a value (`--password v`). The value is:
//    - quoted (`"..."`, `'...'`, backticks; backslash escapes honoured): the text inside;
//    - inside a quoted string (`-H "Authorization: Bearer x"`, `["PASSWORD=x y"]`): up to that
//      closing quote;
//    - at the start of a line (after indentation, `export `, `declare -x `, `ENV `, or a `+ `,
//      `> `, `< `, `- ` trace, curl or list marker): the rest of the line, because `env` and
//      YAML print values with spaces unquoted;
//    - anywhere else: one token, ending at whitespace, a quote, `,`, `;`, `&`, `)`, `]`, `}`, `<`
//      or `>` (so query strings, cookies and logfmt lines keep their other fields).
//    A leading auth scheme (`Bearer `, `Basic `, `Token `, ...) is kept. Empty values, `{`/`[`
//    structures and placeholders (`true`, `null`, `***`, `$VAR`, `${VAR}`, `{{ x }}`, `<value>`,
//    `[REDACTED]`, `***REDACTED***`) are left alone. The `--flag value` form only redacts values that look like a
//    credential (a digit or symbol, or 12+ characters) and are not an ALL-CAPS metavariable, so
//    `--help` text ("--token TOKEN", "use --token to log in") survives.
// 2. isSecretKey: the key is split into word parts (`_ - .` and camelCase: DB_PASSWORD, dbPassword,
//    x-api-key, spring.datasource.password). It is secret-bearing when some part is PASSWORD,
//    PASSWD, PASSPHRASE, SECRET, TOKEN, APIKEY, CREDENTIAL(S), CREDS, AUTH, AUTHORIZATION, COOKIE,
//    SIGNATURE, SIG or a session-cookie name (or ends with one of the long ones: PGPASSWORD,
//    csrftoken); or PASS/PWD/PW/PAT after another part (DB_PASS, MYSQL_PWD, GH_PAT; a bare PWD is
//    the shell's working directory); or KEY after a qualifier (API, ACCESS, SECRET, PRIVATE,
//    ENCRYPTION, SIGNING, MASTER, CLIENT, ACCOUNT, STORAGE, ...; a bare KEY, PRIMARY_KEY or
//    CACHE_KEY is not); or SESSION_ID. It is NOT secret-bearing when a metadata part follows the
//    last secret part: TOKEN_COUNT, max_tokens (plural), PASSWORD_MIN_LENGTH, TOKEN_TTL,
//    DB_PASSWORD_FILE (a path), SECRET_NAME, token_type, PASSWORD_RESET_SENT, secret.yaml.
// 3. Authorization/Cookie headers fall out of rule 1 (`Authorization: Bearer x` keeps `Bearer`;
//    a Cookie or Set-Cookie line is redacted whole after the colon: cookies are bearer
//    credentials). A bare `Bearer <token>` elsewhere is redacted when the token is 16+ token68
//    characters with a digit, so "Bearer of bad news" survives.
// 4. URL credentials: `scheme://user:password@host` keeps the scheme, user and host.
// 5. PEM private keys (`-----BEGIN [RSA|EC|OPENSSH|ENCRYPTED|PGP ...] PRIVATE KEY[ BLOCK]-----`):
//    the body up to the matching END line; an unterminated block (truncated output) loses the
//    following base64 lines. Public keys and certificates are untouched.
// 6. Well-known token formats (TOKEN_FORMATS): AWS access key ids, GitHub, GitLab, Slack (tokens
//    and webhook paths), Stripe, Google (API keys, OAuth client secrets and access tokens), JWTs,
//    npm, OpenAI/Anthropic `sk-`, SendGrid, Twilio API key SIDs, Heroku, PyPI, Docker Hub,
//    Hugging Face, Shopify, Databricks, DigitalOcean, age secret keys, Telegram bot tokens. The
//    vendor prefix stays (`ghp_***REDACTED***`) so a reader can tell what leaked; JWTs go whole.
//
// Linear time: every pattern starts with a literal or a one-character look-behind that fails
// inside a run of the characters its first quantifier consumes, quantifiers are bounded or end
// at a character their class excludes, and nothing nests quantifiers over overlapping classes,
// so each position is examined a bounded number of times (the tests feed it 1 MB adversarial
// lines; about 25-200 ms each here).

/**
 * What a recognised secret is replaced with in the archive: the reference's marker (its archive
 * records hold it). A run's own known values (job-API token, staged secrets) are replaced with
 * common's REDACTED in every sink before the text gets here.
 */
export const REDACTED = '***REDACTED***';

type Span = readonly [start: number, end: number];

/** `text` with every recognisable secret replaced by `***REDACTED***` (see the module header). */
export function redactSecrets(text: string): string {
  if (text.length === 0) return text;
  const spans: Span[] = [];
  addPrivateKeyBlocks(text, spans);
  addAssignments(text, spans);
  addFlagValues(text, spans);
  addXmlElements(text, spans);
  addUrlCredentials(text, spans);
  addTokenFormats(text, spans);
  return spans.length === 0 ? text : replaceSpans(text, spans);
}

// ---------------------------------------------------------------------------------------------
// Keys

/** A set from a whitespace-separated word list (keeps the long vocabularies compact). */
function words(list: string): ReadonlySet<string> {
  return new Set(list.split(/\s+/).filter((word) => word !== ''));
}

const SECRET_PARTS = words(`
  password passwd passphrase secret token apikey apitoken credential credentials creds auth
  authorization cookie signature sig sessionid sessid phpsessid jsessionid
`);

/** Concatenated keys ending in one of these are secret too (PGPASSWORD, csrftoken, xapikey). */
const SECRET_SUFFIXES = [
  ...words(
    'password passwd passphrase secret token apikey accesskey secretkey privatekey sessionid',
  ),
];

/** Secret only after another part: a bare PWD is the shell's directory, PASS a test count. */
const QUALIFIED_SECRET_PARTS = words('pass pwd pw pat');

/** KEY is secret only after one of these (API_KEY, not PRIMARY_KEY or CACHE_KEY). */
const KEY_QUALIFIERS = words(`
  api access secret private encryption encrypt signing sign master client app license licence
  auth service account storage shared hmac session subscription admin root webhook deploy ssh
  crypt crypto aes
`);

/**
 * A part after the last secret part that makes the key describe a secret, not hold one; the last
 * line is file extensions (`secret.yaml: line 3`, `token.go:42:`).
 */
const METADATA_PARTS = words(`
  count counts len length min max minimum maximum ttl expiry expires expiration expired lifetime
  duration timeout seconds secs ms url uri endpoint host file path dir directory name type kind
  format version size limit enabled disabled enable required policy hint reset changed updated
  created rotated set header field param prefix stdin fd sent valid invalid present missing
  exists mode strategy store source provider algorithm alg scope scopes audience issuer usage
  label
  txt json yaml yml toml ini env conf cfg log pem crt go py js ts rb rs java sh md xml sql tf
`);

/** Every secret-bearing key contains one of these (a cheap pre-check before keyParts). */
const MAYBE_SECRET_KEY = /pass|pw|secret|token|key|cred|auth|cookie|sig|sess|pat/i;

/** The lower-cased word parts of a key: DB_PASSWORD, dbPassword, db-password → [db, password]. */
function keyParts(key: string): string[] {
  const parts: string[] = [];
  for (const chunk of key.split(/[^A-Za-z0-9]+/)) {
    for (const word of chunk.matchAll(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g)) {
      parts.push(word[0].toLowerCase());
    }
  }
  return parts;
}

function isSecretPart(parts: readonly string[], index: number): boolean {
  const part = parts[index] ?? '';
  const previous = index > 0 ? parts[index - 1] : undefined;
  if (SECRET_PARTS.has(part)) return true;
  if (SECRET_SUFFIXES.some((suffix) => part.endsWith(suffix))) return true;
  if (previous === undefined) return false;
  if (QUALIFIED_SECRET_PARTS.has(part)) return true;
  if (part === 'key') return KEY_QUALIFIERS.has(previous);
  return part === 'id' && previous === 'session';
}

/**
 * Whether a variable, header, flag or field name looks like it holds a secret (module header,
 * rule 2): DB_PASSWORD, github_token, x-api-key, AWS_SECRET_ACCESS_KEY yes; TOKEN_COUNT,
 * max_tokens, PWD, DB_PASSWORD_FILE, author no.
 */
export function isSecretKey(key: string): boolean {
  if (!MAYBE_SECRET_KEY.test(key)) return false; // most keys: skip the split
  const parts = keyParts(key);
  let lastSecret = -1;
  for (let index = 0; index < parts.length; index += 1) {
    if (isSecretPart(parts, index)) lastSecret = index;
  }
  if (lastSecret < 0) return false;
  return !parts.slice(lastSecret + 1).some((part) => METADATA_PARTS.has(part));
}

// ---------------------------------------------------------------------------------------------
// Values

const PLACEHOLDER_WORDS = words(`
  true false null none nil undefined yes no on off empty unset redacted hidden masked n/a
`);

/** ***, xxx, ..., $VAR, ${VAR}, ${{ x }}, {{ x }}, <value>, %s, [REDACTED], ***REDACTED***, YAML block markers. */
const PLACEHOLDER_SHAPE =
  /^(?:\*+|x{3,}|X{3,}|\.{3}|…|\$\{?[A-Za-z_][\w.]*\}?|\$?\{\{[^{}]*\}\}|<[^<>]*>|%[sdv]|\[REDACTED\]|\*{3}REDACTED\*{3}|[|>][-+]?)$/;

function isPlaceholder(value: string): boolean {
  if (value.length > 256) return false;
  return PLACEHOLDER_WORDS.has(value.toLowerCase()) || PLACEHOLDER_SHAPE.test(value);
}

/** An auth scheme kept in front of the credential: `Authorization: Bearer ***REDACTED***`. */
const AUTH_SCHEME =
  /^(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|Bot|OAuth|ApiKey|AWS4-HMAC-SHA256|SSWS|Splunk|JWT)[ \t]+/i;

/** Characters that end an unquoted mid-line value. */
const VALUE_END = new Set([
  ' ',
  '\t',
  '\n',
  '\r',
  '"',
  "'",
  '`',
  ',',
  ';',
  '&',
  ')',
  ']',
  '}',
  '<',
  '>',
]);

const QUOTES = new Set(['"', "'", '`']);

/** Longest quoted value scanned for its closing quote; the remainder is rescanned normally. */
const MAX_QUOTED_CHARS = 4096;

interface ValueShape {
  /** The value fills the rest of the line (an assignment at the start of a line). */
  readonly lineStart: boolean;
  /** The assignment sits inside a string quoted with this character. */
  readonly enclosingQuote: string | undefined;
}

interface ValueSpan {
  readonly start: number;
  readonly end: number;
  /** Where scanning for the next assignment resumes. */
  readonly resumeAt: number;
}

function skipBlanks(text: string, from: number): number {
  let at = from;
  while (at < text.length && at - from < 16 && (text[at] === ' ' || text[at] === '\t')) at += 1;
  return at;
}

function scanUntil(text: string, from: number, stop: (char: string) => boolean): number {
  let at = from;
  while (at < text.length && !stop(text[at] ?? '')) at += 1;
  return at;
}

/** The raw extent of the value starting at `from` (after the separator), before trimming. */
function valueExtent(text: string, from: number, shape: ValueShape): ValueSpan | undefined {
  const start = skipBlanks(text, from);
  const first = text[start];
  if (first === undefined || first === '\n' || first === '\r' || first === '{' || first === '[') {
    return undefined;
  }
  if (QUOTES.has(first)) {
    let at = start + 1;
    while (at < text.length && at - start <= MAX_QUOTED_CHARS) {
      const char = text[at];
      if (char === first || char === '\n') break;
      at += char === '\\' && at + 1 < text.length && text[at + 1] !== '\n' ? 2 : 1;
    }
    return { start: start + 1, end: at, resumeAt: text[at] === first ? at + 1 : at };
  }
  const quote = shape.enclosingQuote;
  if (quote !== undefined) {
    const end = scanUntil(text, start, (char) => char === quote || char === '\n');
    return { start, end, resumeAt: end };
  }
  if (shape.lineStart) {
    const end = scanUntil(text, start, (char) => char === '\n');
    return { start, end, resumeAt: end };
  }
  const end = scanUntil(text, start, (char) => VALUE_END.has(char));
  return { start, end, resumeAt: end };
}

/** The secret part of the value at `from`: trimmed, auth scheme skipped, placeholders dropped. */
function locateValue(text: string, from: number, shape: ValueShape): ValueSpan | undefined {
  const extent = valueExtent(text, from, shape);
  if (!extent) return undefined;
  let { start, end } = extent;
  while (end > start && /\s/.test(text[end - 1] ?? '')) end -= 1;
  const scheme = AUTH_SCHEME.exec(text.slice(start, Math.min(end, start + 40)));
  if (scheme) start += scheme[0].length;
  if (end <= start || text.startsWith(REDACTED, start)) return undefined;
  if (isPlaceholder(text.slice(start, Math.min(end, start + 257)))) return undefined;
  return { start, end, resumeAt: extent.resumeAt };
}

// ---------------------------------------------------------------------------------------------
// Rule 1: assignments, flags and XML elements

/**
 * `[line-start prefix] ["]key["] <blanks> separator`. The optional `line` group only matches at
 * the start of a line (`m` flag), which is how a value learns it may run to the end of the line.
 * The look-behind keeps keys from starting inside a word, a path (`/etc/passwd:`) or a flag.
 */
const ASSIGNMENT = new RegExp(
  [
    String.raw`(?<line>^[ \t]*(?:[-+<>*][ \t]+)?`, // indentation, a trace, curl or list marker
    String.raw`(?:(?:export|declare[ \t]+-[A-Za-z]{1,4}|typeset[ \t]+-[A-Za-z]{1,4}|`, // a keyword
    String.raw`setenv|set|local|readonly|ENV|ARG)[ \t]+)?)?`,
    String.raw`(?<![\w.\-/\\])`, // not inside a word, a path or a flag
    String.raw`(?<quote>["']?)(?<key>-{0,2}[A-Za-z_][\w.-]{0,127})\k<quote>`,
    String.raw`[ \t]{0,16}(?::=|=>|=(?!=)|:(?![:=]))`, // not `==`, `::` or `:=`-as-colon
  ].join(''),
  'gm',
);

function addAssignments(text: string, spans: Span[]): void {
  const pattern = new RegExp(ASSIGNMENT);
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const key = match.groups?.key ?? '';
    if (!isSecretKey(key)) continue; // resume right after the separator
    const line = match.groups?.line;
    const quote = match.groups?.quote ?? '';
    const keyStart = match.index + (line?.length ?? 0);
    const before = text[keyStart - 1];
    // Not `line !== undefined`: a quantified group that matches empty (a key in column 0) does
    // not participate (ECMA-262 RepeatMatcher), so the match's own position decides.
    const lineStart = match.index === 0 || text[match.index - 1] === '\n';
    const value = locateValue(text, match.index + match[0].length, {
      lineStart,
      enclosingQuote:
        quote === '' && before !== undefined && QUOTES.has(before) ? before : undefined,
    });
    if (!value) continue;
    spans.push([value.start, value.end]);
    pattern.lastIndex = value.resumeAt;
  }
}

/** `--password hunter2` / `-token abc`: a flag, blanks, then a value that is not another flag. */
const FLAG_VALUE = /(?<![\w.\-/\\])(?<key>--?[A-Za-z][\w.-]{0,63})[ \t]{1,16}(?=[^\s-])/g;

/** A flag's value is only taken for a credential when it looks like one (module header). */
function looksLikeCredential(value: string): boolean {
  if (/^[A-Z][A-Z0-9_]*$/.test(value)) return false; // --token TOKEN in --help output
  return value.length >= 12 || /[^A-Za-z]/.test(value);
}

function addFlagValues(text: string, spans: Span[]): void {
  for (const match of text.matchAll(FLAG_VALUE)) {
    if (!isSecretKey(match.groups?.key ?? '')) continue;
    const at = match.index + match[0].length;
    const value = locateValue(text, at, { lineStart: false, enclosingQuote: undefined });
    if (!value) continue;
    // A quoted value is deliberate; a bare word must look like a credential.
    const quoted = QUOTES.has(text[at] ?? '');
    if (quoted || looksLikeCredential(text.slice(value.start, value.end))) {
      spans.push([value.start, value.end]);
    }
  }
}

/** `<password>hunter2</password>` (Maven settings, SOAP); attributes allowed on the open tag. */
const XML_ELEMENT =
  /<(?<tag>[A-Za-z_][\w.:-]{0,63})(?:[ \t][^<>\n]{0,256})?>(?<value>[^<\n]{1,4096})<\/\k<tag>>/dg;

function addXmlElements(text: string, spans: Span[]): void {
  for (const match of text.matchAll(XML_ELEMENT)) {
    const range = match.indices?.groups?.value;
    if (!range || !isSecretKey(match.groups?.tag ?? '')) continue;
    const value = match.groups?.value?.trim() ?? '';
    if (value === '' || isPlaceholder(value)) continue;
    spans.push(range);
  }
}

// ---------------------------------------------------------------------------------------------
// Rules 4 and 5: URL credentials and PEM private keys

/** scheme://user:password@host; the password runs to the LAST `@` before the path, as in WHATWG. */
const URL_CREDENTIALS =
  /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s/?#@:]{0,256}:(?<secret>[^\s/?#]{1,256})@/dg;

function addUrlCredentials(text: string, spans: Span[]): void {
  for (const match of text.matchAll(URL_CREDENTIALS)) {
    const range = match.indices?.groups?.secret;
    const secret = match.groups?.secret ?? '';
    if (range && !isPlaceholder(secret)) spans.push(range);
  }
}

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
/** A line of a PEM body: base64 (64 per line; a short last line may stay visible). */
const PEM_BASE64_LINE = /^[A-Za-z0-9+/=]{16,}$/;
/** An RFC 1421 header of a legacy encrypted key (`Proc-Type: 4,ENCRYPTED`), then a blank line. */
const PEM_HEADER_LINE = /^[A-Za-z-]{1,32}: /;

/** Pushes [start, end) without its leading and trailing whitespace (keeps the PEM lines apart). */
function pushTrimmed(text: string, start: number, end: number, spans: Span[]): void {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text[from] ?? '')) from += 1;
  while (to > from && /\s/.test(text[to - 1] ?? '')) to -= 1;
  if (to > from) spans.push([from, to]);
}

function addPrivateKeyBlocks(text: string, spans: Span[]): void {
  const begins = [...text.matchAll(PEM_BEGIN)];
  if (begins.length === 0) return;
  const ends = [...text.matchAll(PEM_END)];
  let nextEnd = 0;
  let coveredUntil = 0;
  for (const [index, begin] of begins.entries()) {
    const bodyStart = begin.index + begin[0].length;
    if (begin.index < coveredUntil) continue; // inside the block before it
    while (nextEnd < ends.length && (ends[nextEnd]?.index ?? 0) < bodyStart) nextEnd += 1;
    const end = ends[nextEnd];
    const nextBegin = begins[index + 1];
    if (end && (!nextBegin || end.index < nextBegin.index)) {
      pushTrimmed(text, bodyStart, end.index, spans);
      coveredUntil = end.index + end[0].length;
      continue;
    }
    // Unterminated (truncated output): the rest of the BEGIN line, then the lines that look
    // like a PEM body (a blank line only after a header line, as RFC 1421 puts it).
    let stop = text.indexOf('\n', bodyStart);
    if (stop < 0) stop = text.length;
    let afterHeader = false;
    while (stop < text.length) {
      const lineEnd = text.indexOf('\n', stop + 1);
      const next = lineEnd < 0 ? text.length : lineEnd;
      const line = text.slice(stop + 1, next).trim();
      const header = PEM_HEADER_LINE.test(line);
      if (!header && !PEM_BASE64_LINE.test(line) && !(afterHeader && line === '')) break;
      afterHeader = header;
      stop = next;
    }
    pushTrimmed(text, bodyStart, stop, spans);
    coveredUntil = stop;
  }
}

// ---------------------------------------------------------------------------------------------
// Rule 6: well-known token formats

interface TokenFormat {
  readonly name: string;
  /** Global, `d` flag, with a `secret` group: the part replaced (a vendor prefix stays outside). */
  readonly pattern: RegExp;
  /** Extra check on the secret (e.g. random tokens contain a digit). */
  readonly accept?: (secret: string) => boolean;
}

const hasDigitAndLetter = (secret: string): boolean => /\d/.test(secret) && /[A-Za-z]/.test(secret);

/** Exported for the tests, which hold one sample of each. */
export const TOKEN_FORMATS: readonly TokenFormat[] = [
  {
    name: 'aws-access-key-id',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)(?<secret>[A-Z0-9]{16})(?![A-Za-z0-9])/dg,
  },
  {
    name: 'github-token',
    pattern: /(?<![A-Za-z0-9_])gh[pousr]_(?<secret>[A-Za-z0-9]{36,251})(?![A-Za-z0-9])/dg,
  },
  {
    name: 'github-fine-grained-pat',
    pattern: /(?<![A-Za-z0-9_])github_pat_(?<secret>[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/dg,
  },
  {
    name: 'gitlab-token',
    pattern: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|soat|ft)-(?<secret>[A-Za-z0-9_-]{20,255})/dg,
  },
  {
    name: 'slack-token',
    pattern: /(?<![A-Za-z0-9_-])(?:xox[abeoprs]|xapp)-(?<secret>[A-Za-z0-9-]{10,255})/dg,
  },
  {
    name: 'slack-webhook',
    pattern:
      /hooks\.slack\.com\/(?:services|workflows|triggers)\/(?<secret>[A-Za-z0-9/_-]{20,255})/dg,
  },
  {
    name: 'stripe-secret-key',
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_(?<secret>[A-Za-z0-9]{10,255})/dg,
  },
  {
    name: 'stripe-webhook-secret',
    pattern: /(?<![A-Za-z0-9_])whsec_(?<secret>[A-Za-z0-9+/=]{20,255})/dg,
  },
  {
    name: 'google-api-key',
    pattern: /(?<![A-Za-z0-9_-])AIza(?<secret>[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])/dg,
  },
  {
    name: 'google-oauth-client-secret',
    pattern: /(?<![A-Za-z0-9_-])GOCSPX-(?<secret>[A-Za-z0-9_-]{20,64})/dg,
  },
  {
    name: 'google-oauth-access-token',
    pattern: /(?<![A-Za-z0-9_-])ya29\.(?<secret>[A-Za-z0-9_-]{20,})/dg,
  },
  {
    name: 'jwt',
    pattern:
      /(?<![A-Za-z0-9_-])(?<secret>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*)/dg,
  },
  {
    name: 'npm-token',
    pattern: /(?<![A-Za-z0-9_])npm_(?<secret>[A-Za-z0-9]{36})(?![A-Za-z0-9])/dg,
  },
  {
    name: 'openai-anthropic-key',
    pattern: /(?<![A-Za-z0-9_-])sk-(?<secret>[A-Za-z0-9_-]{20,255})/dg,
    accept: hasDigitAndLetter,
  },
  {
    name: 'sendgrid-key',
    pattern:
      /(?<![A-Za-z0-9_-])SG\.(?<secret>[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/dg,
  },
  {
    name: 'twilio-api-key-sid',
    pattern: /(?<![A-Za-z0-9])SK(?<secret>[0-9a-f]{32})(?![A-Za-z0-9])/dg,
  },
  {
    name: 'heroku-api-key',
    pattern: /(?<![A-Za-z0-9_-])HRKU-(?<secret>[A-Za-z0-9_-]{20,255})/dg,
  },
  {
    name: 'pypi-token',
    pattern: /(?<![A-Za-z0-9_-])pypi-(?<secret>Ag[A-Za-z0-9_-]{50,})/dg,
  },
  {
    name: 'docker-hub-pat',
    pattern: /(?<![A-Za-z0-9_-])dckr_pat_(?<secret>[A-Za-z0-9_-]{20,255})/dg,
  },
  {
    name: 'hugging-face-token',
    pattern: /(?<![A-Za-z0-9_])hf_(?<secret>[A-Za-z0-9]{30,255})(?![A-Za-z0-9_])/dg,
    accept: hasDigitAndLetter,
  },
  {
    name: 'shopify-token',
    pattern: /(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_(?<secret>[a-fA-F0-9]{32})(?![A-Za-z0-9])/dg,
  },
  {
    name: 'databricks-token',
    pattern: /(?<![A-Za-z0-9_])dapi(?<secret>[a-f0-9]{32})(?:-\d)?(?![A-Za-z0-9])/dg,
  },
  {
    name: 'digitalocean-token',
    pattern: /(?<![A-Za-z0-9_])do[opr]_v1_(?<secret>[a-f0-9]{64})(?![A-Za-z0-9])/dg,
  },
  {
    name: 'age-secret-key',
    pattern: /(?<![A-Za-z0-9-])AGE-SECRET-KEY-1(?<secret>[0-9A-Z]{58})(?![A-Za-z0-9])/dg,
  },
  {
    name: 'telegram-bot-token',
    pattern: /(?<![0-9])\d{8,10}:(?<secret>AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])/dg,
  },
  {
    name: 'bearer-token',
    pattern: /(?<![A-Za-z0-9_-])[Bb]earer[ \t]+(?<secret>[A-Za-z0-9._~+/-]{16,4096}=*)/dg,
    accept: (secret) => /\d/.test(secret),
  },
];

function addTokenFormats(text: string, spans: Span[]): void {
  for (const format of TOKEN_FORMATS) {
    for (const match of text.matchAll(format.pattern)) {
      const range = match.indices?.groups?.secret;
      const secret = match.groups?.secret;
      if (!range || secret === undefined) continue;
      if (format.accept && !format.accept(secret)) continue;
      spans.push(range);
    }
  }
}

// ---------------------------------------------------------------------------------------------

/** Merges overlapping and touching spans and replaces each with REDACTED. */
/** A span's replacement: one marker per line it covers, its line breaks kept. */
function masked(secret: string): string {
  if (!secret.includes('\n')) return REDACTED;
  return secret.replace(/[^\r\n]+/g, REDACTED);
}

function replaceSpans(text: string, spans: Span[]): string {
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: string[] = [];
  let copiedUntil = 0;
  let open: [number, number] | undefined;
  for (const [start, end] of spans) {
    if (end <= start) continue;
    if (open && start <= open[1]) {
      open[1] = Math.max(open[1], end);
      continue;
    }
    if (open) {
      out.push(text.slice(copiedUntil, open[0]), masked(text.slice(open[0], open[1])));
      copiedUntil = open[1];
    }
    open = [start, end];
  }
  if (open) {
    out.push(text.slice(copiedUntil, open[0]), masked(text.slice(open[0], open[1])));
    copiedUntil = open[1];
  }
  out.push(text.slice(copiedUntil));
  return out.join('');
}

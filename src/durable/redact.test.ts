import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REDACTED, TOKEN_FORMATS, isSecretKey, redactSecrets } from './redact.js';

// Fake credentials are generated, not pasted: no real-looking secret sits in the source for a
// scanner to flag, and every sample is still the exact shape of the real thing.
const ALNUM = 'aB3dE5gH7jK9mN2pQ4sT6vW8yZ0cF1hL';
const HEX = '0123456789abcdef';
function fake(length: number, alphabet = ALNUM, seed = 0): string {
  let out = '';
  for (let index = 0; index < length; index += 1) {
    out += alphabet[(index * 7 + seed * 3) % alphabet.length];
  }
  return out;
}
const b64url = (json: object): string => Buffer.from(JSON.stringify(json)).toString('base64url');

const GHP = `ghp_${fake(36)}`;
const GITHUB_PAT = `github_pat_${fake(22, ALNUM, 1)}_${fake(59, ALNUM, 2)}`;
const GLPAT = `glpat-${fake(20, ALNUM, 3)}`;
const SLACK_BOT = `xoxb-${fake(12, '0123456789')}-${fake(13, '0123456789', 1)}-${fake(24, ALNUM, 4)}`;
const SLACK_HOOK_PATH = `T${fake(8, 'ABCDEFGH0123')}/B${fake(10, 'ABCDEFGH0123', 1)}/${fake(24, ALNUM, 5)}`;
const STRIPE = `sk_live_${fake(24, ALNUM, 6)}`;
const GOOGLE = `AIza${fake(35, `${ALNUM}_-`, 7)}`;
const JWT = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '1234567890', name: 'Alice' })}.${fake(43, `${ALNUM}_-`, 8)}`;
const NPM = `npm_${fake(36, ALNUM, 9)}`;
const OPENAI = `sk-proj-${fake(48, `${ALNUM}_-`, 10)}`;
const ANTHROPIC = `sk-ant-api03-${fake(80, `${ALNUM}_-`, 11)}`;
const SENDGRID = `SG.${fake(22, `${ALNUM}_-`, 12)}.${fake(43, `${ALNUM}_-`, 13)}`;
const TWILIO = `SK${fake(32, HEX, 14)}`;
const PYPI = `pypi-AgEIcHlwaS5vcmc${fake(60, `${ALNUM}_-`, 15)}`;
const DOCKER = `dckr_pat_${fake(27, `${ALNUM}_-`, 16)}`;
const HUGGING_FACE = `hf_${fake(34, ALNUM, 17)}`;
const HEROKU = `HRKU-AA${fake(58, `${ALNUM}_-`, 18)}`;
const TELEGRAM = `123456789:AA${fake(33, `${ALNUM}_-`, 19)}`;
const AWS_KEY_ID = `AKIA${fake(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 20)}`;
const AWS_SECRET = fake(40, `${ALNUM}/+`, 21);
const SHOPIFY = `shpat_${fake(32, HEX, 22)}`;
const DATABRICKS = `dapi${fake(32, HEX, 23)}`;
const DIGITALOCEAN = `dop_v1_${fake(64, HEX, 24)}`;
const AGE = `AGE-SECRET-KEY-1${fake(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 25)}`;
const GOOGLE_OAUTH_SECRET = `GOCSPX-${fake(28, `${ALNUM}_-`, 26)}`;
const GOOGLE_ACCESS = `ya29.${fake(60, `${ALNUM}_-`, 27)}`;
const WHSEC = `whsec_${fake(32, ALNUM, 28)}`;
const PEM_BODY = [
  fake(64, `${ALNUM}+/`, 29),
  fake(64, `${ALNUM}+/`, 30),
  `${fake(20, ALNUM, 31)}==`,
];

interface SecretShape {
  readonly name: string;
  readonly input: string;
  /** Substrings that must be gone. */
  readonly secrets: readonly string[];
  /** Substrings that must still be there (the context that keeps the line readable). */
  readonly keep: readonly string[];
}

const SECRET_SHAPES: readonly SecretShape[] = [
  {
    name: 'an env dump line',
    input: 'HOME=/root\nDB_PASSWORD=hunter2-Secret\nPATH=/usr/bin',
    secrets: ['hunter2-Secret'],
    keep: ['HOME=/root\nDB_PASSWORD=', '\nPATH=/usr/bin'],
  },
  {
    name: 'an env dump value with spaces (env prints them unquoted)',
    input: 'APP_SECRET=correct horse battery staple\nTZ=UTC',
    secrets: ['correct horse battery staple', 'horse'],
    keep: ['APP_SECRET=', '\nTZ=UTC'],
  },
  {
    name: 'export with a double-quoted value',
    input: 'export GITHUB_TOKEN="tok en-42"',
    secrets: ['tok en-42'],
    keep: ['export GITHUB_TOKEN="', '"'],
  },
  {
    name: 'a lower-case YAML key',
    input: 'settings:\n  github_token: tok-abc-42\n  retries: 3',
    secrets: ['tok-abc-42'],
    keep: ['  github_token: ', '\n  retries: 3'],
  },
  {
    name: 'a logfmt field mid-line',
    input: 'level=info user=bob password=hunter2 retry=3',
    secrets: ['hunter2'],
    keep: ['level=info user=bob password=', ' retry=3'],
  },
  {
    name: 'a JSON field with an escaped quote',
    input: '{"user":"bob","password":"pa\\"ss-42","ok":true}',
    secrets: ['pa\\"ss-42', 'ss-42'],
    keep: ['{"user":"bob","password":"', '","ok":true}'],
  },
  {
    name: 'a Python dict repr',
    input: "{'api_key': 'k-123-abc', 'region': 'eu-west-1'}",
    secrets: ['k-123-abc'],
    keep: ["{'api_key': '", "', 'region': 'eu-west-1'}"],
  },
  {
    name: 'a camelCase JSON key',
    input: '{"clientId": "app-1", "clientSecret": "cs-9f8e7d"}',
    secrets: ['cs-9f8e7d'],
    keep: ['"clientId": "app-1"', '"clientSecret": "'],
  },
  {
    name: 'a query-string parameter',
    input: 'GET https://api.example.com/cb?access_token=at-123abc&page=2 200',
    secrets: ['at-123abc'],
    keep: ['/cb?access_token=', '&page=2 200'],
  },
  {
    name: 'an AWS secret access key assignment',
    input: `aws_secret_access_key = ${AWS_SECRET}`,
    secrets: [AWS_SECRET],
    keep: ['aws_secret_access_key = '],
  },
  {
    name: 'an AWS access key id in prose',
    input: `uploading with key ${AWS_KEY_ID} to s3://bucket`,
    secrets: [AWS_KEY_ID.slice(4)],
    keep: ['uploading with key AKIA', ' to s3://bucket'],
  },
  {
    name: 'a Bearer header inside a quoted curl argument',
    input: `+ curl -H "Authorization: Bearer ${GHP.slice(4)}" https://api.github.com/user`,
    secrets: [GHP.slice(4)],
    keep: ['+ curl -H "Authorization: Bearer ', '" https://api.github.com/user'],
  },
  {
    name: 'a Basic header in curl -v output',
    input: '> GET / HTTP/1.1\n> Authorization: Basic dXNlcjpwYXNzd29yZA==\n> Accept: */*',
    secrets: ['dXNlcjpwYXNzd29yZA=='],
    keep: ['> Authorization: Basic ', '\n> Accept: */*'],
  },
  {
    name: 'a Set-Cookie header',
    input: '< HTTP/1.1 200 OK\n< Set-Cookie: session=s3ss10n-abc; Path=/; HttpOnly\n< Server: x',
    secrets: ['s3ss10n-abc'],
    keep: ['< Set-Cookie: ', '\n< Server: x'],
  },
  {
    name: 'an API key header line',
    input: 'X-Api-Key: key-1234abcd\nContent-Type: application/json',
    secrets: ['key-1234abcd'],
    keep: ['X-Api-Key: ', '\nContent-Type: application/json'],
  },
  {
    name: 'a database URL with credentials',
    input: 'connecting to postgres://app:S3cr3t!x@db.internal:5432/app?sslmode=require',
    secrets: ['S3cr3t!x'],
    keep: ['postgres://app:', '@db.internal:5432/app?sslmode=require'],
  },
  {
    name: "a URL whose password contains '@'",
    input: 'redis://:p@ss-w0rd@cache:6379/0',
    secrets: ['p@ss-w0rd', 'ss-w0rd'],
    keep: ['redis://:', '@cache:6379/0'],
  },
  {
    name: 'a GitHub personal access token',
    input: `token ${GHP} expires soon`,
    secrets: [GHP.slice(4)],
    keep: ['token ghp_', ' expires soon'],
  },
  {
    name: 'a GitHub fine-grained token',
    input: `git clone https://${GITHUB_PAT}@github.com/org/repo`,
    secrets: [GITHUB_PAT.slice(11)],
    keep: ['git clone https://github_pat_', '@github.com/org/repo'],
  },
  {
    name: 'a GitLab token',
    input: `remote: using ${GLPAT}.`,
    secrets: [GLPAT.slice(6)],
    keep: ['remote: using glpat-', '.'],
  },
  {
    name: 'a Slack bot token',
    input: `slack client ready (${SLACK_BOT})`,
    secrets: [SLACK_BOT.slice(5)],
    keep: ['slack client ready (xoxb-', ')'],
  },
  {
    name: 'a Slack webhook URL',
    input: `POST https://hooks.slack.com/services/${SLACK_HOOK_PATH} -> 200`,
    secrets: [SLACK_HOOK_PATH],
    keep: ['POST https://hooks.slack.com/services/', ' -> 200'],
  },
  {
    name: 'a Stripe secret key',
    input: `stripe.api_key set from config: ${STRIPE}`,
    secrets: [STRIPE.slice(8)],
    keep: ['sk_live_'],
  },
  {
    name: 'a Stripe webhook secret',
    input: `signing with ${WHSEC}`,
    secrets: [WHSEC.slice(6)],
    keep: ['signing with whsec_'],
  },
  {
    name: 'a Google API key',
    input: `maps request key=${GOOGLE}&q=berlin`,
    secrets: [GOOGLE.slice(4)],
    keep: ['maps request key=AIza', '&q=berlin'],
  },
  {
    name: 'a Google OAuth client secret and access token',
    input: `client ${GOOGLE_OAUTH_SECRET} issued ${GOOGLE_ACCESS}`,
    secrets: [GOOGLE_OAUTH_SECRET.slice(7), GOOGLE_ACCESS.slice(5)],
    keep: ['client GOCSPX-', ' issued ya29.'],
  },
  {
    name: 'a JWT in a log line',
    input: `verified session ${JWT} for alice`,
    secrets: [JWT, JWT.split('.')[2] ?? ''],
    keep: ['verified session ', ' for alice'],
  },
  {
    name: 'a standalone Bearer token',
    input: `retrying with Bearer ${fake(32, ALNUM, 40)} after 401`,
    secrets: [fake(32, ALNUM, 40)],
    keep: ['retrying with Bearer ', ' after 401'],
  },
  {
    name: 'an RSA private key block',
    input: [
      'writing key:',
      '-----BEGIN RSA PRIVATE KEY-----',
      ...PEM_BODY,
      '-----END RSA PRIVATE KEY-----',
      'done',
    ].join('\n'),
    secrets: PEM_BODY,
    keep: [
      'writing key:\n-----BEGIN RSA PRIVATE KEY-----\n',
      '\n-----END RSA PRIVATE KEY-----\ndone',
    ],
  },
  {
    name: 'an OpenSSH private key block',
    input: `-----BEGIN OPENSSH PRIVATE KEY-----\r\n${PEM_BODY.join('\r\n')}\r\n-----END OPENSSH PRIVATE KEY-----\r\n`,
    secrets: PEM_BODY,
    keep: ['-----BEGIN OPENSSH PRIVATE KEY-----\r\n', '\r\n-----END OPENSSH PRIVATE KEY-----\r\n'],
  },
  {
    name: 'a private key block cut off by the output limit',
    input: `-----BEGIN EC PRIVATE KEY-----\n${PEM_BODY[0] ?? ''}\n${PEM_BODY[1] ?? ''}`,
    secrets: [PEM_BODY[0] ?? '', PEM_BODY[1] ?? ''],
    keep: ['-----BEGIN EC PRIVATE KEY-----\n'],
  },
  {
    name: 'a private key inside a JSON string (service-account file)',
    input: `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n${PEM_BODY[0] ?? ''}\\n-----END PRIVATE KEY-----\\n", "client_email": "a@b.iam"}`,
    secrets: [PEM_BODY[0] ?? ''],
    keep: ['{"type": "service_account", "private_key": "', '", "client_email": "a@b.iam"}'],
  },
  {
    name: 'an npm token in .npmrc',
    input: `//registry.npmjs.org/:_authToken=${NPM}`,
    secrets: [NPM.slice(4)],
    keep: ['//registry.npmjs.org/:_authToken='],
  },
  {
    name: 'an OpenAI project key',
    input: `openai: using ${OPENAI}`,
    secrets: [OPENAI.slice(3)],
    keep: ['openai: using sk-'],
  },
  {
    name: 'an Anthropic key',
    input: `ANTHROPIC_KEY_HINT none; client(${ANTHROPIC})`,
    secrets: [ANTHROPIC.slice(3)],
    keep: ['ANTHROPIC_KEY_HINT none; client(sk-', ')'],
  },
  {
    name: 'a SendGrid key',
    input: `mailer key ${SENDGRID} loaded`,
    secrets: [SENDGRID.slice(3)],
    keep: ['mailer key SG.', ' loaded'],
  },
  {
    name: 'a Twilio API key SID',
    input: `twilio auth with ${TWILIO}`,
    secrets: [TWILIO.slice(2)],
    keep: ['twilio auth with SK'],
  },
  {
    name: 'a PyPI token',
    input: `twine upload -u __token__ -p ${PYPI} dist/*`,
    secrets: [PYPI.slice(5)],
    keep: ['twine upload -u __token__ -p pypi-', ' dist/*'],
  },
  {
    name: 'a Docker Hub token',
    input: `echo ${DOCKER} | docker login -u bot --password-stdin`,
    secrets: [DOCKER.slice(9)],
    keep: ['echo dckr_pat_', ' | docker login -u bot --password-stdin'],
  },
  {
    name: 'a Hugging Face token',
    input: `hub login ok (${HUGGING_FACE})`,
    secrets: [HUGGING_FACE.slice(3)],
    keep: ['hub login ok (hf_', ')'],
  },
  {
    name: 'a Heroku API key',
    input: `heroku: ${HEROKU}`,
    secrets: [HEROKU.slice(5)],
    keep: ['heroku: HRKU-'],
  },
  {
    name: 'a Telegram bot token',
    input: `GET https://api.telegram.org/bot${TELEGRAM}/getMe`,
    secrets: [TELEGRAM.slice(10)],
    keep: ['GET https://api.telegram.org/bot123456789:', '/getMe'],
  },
  {
    name: 'Shopify, Databricks, DigitalOcean and age keys',
    input: `${SHOPIFY} ${DATABRICKS} ${DIGITALOCEAN} ${AGE}`,
    secrets: [SHOPIFY.slice(6), DATABRICKS.slice(4), DIGITALOCEAN.slice(7), AGE.slice(16)],
    keep: ['shpat_', 'dapi', 'dop_v1_', 'AGE-SECRET-KEY-1'],
  },
  {
    name: 'a --password flag in a set -x trace',
    input: '+ mysqldump --user root --password hunter2 appdb',
    secrets: ['hunter2'],
    keep: ['+ mysqldump --user root --password ', ' appdb'],
  },
  {
    name: 'a --token=value flag',
    input: 'vault login --token=s.abcdef123 -method=token',
    secrets: ['s.abcdef123'],
    keep: ['vault login --token=', ' -method=token'],
  },
  {
    name: 'an XML element',
    input: '<server><id>nexus</id><password>n3xus-pw</password></server>',
    secrets: ['n3xus-pw'],
    keep: ['<server><id>nexus</id><password>', '</password></server>'],
  },
  {
    name: 'a concatenated key (PGPASSWORD)',
    input: 'PGPASSWORD=pg-pass-1 psql -h db',
    secrets: ['pg-pass-1'],
    keep: ['PGPASSWORD='],
  },
  {
    name: 'a system property nested in a non-secret variable',
    input: 'JAVA_OPTS=-Dspring.datasource.password=sp-42 -Xmx1g',
    secrets: ['sp-42'],
    keep: ['JAVA_OPTS=-Dspring.datasource.password=', ' -Xmx1g'],
  },
  {
    name: 'a docker inspect Env entry',
    input: '"Env": ["MYSQL_ROOT_PASSWORD=my root pw", "TZ=UTC"]',
    secrets: ['my root pw'],
    keep: ['"Env": ["MYSQL_ROOT_PASSWORD=', '", "TZ=UTC"]'],
  },
  {
    name: 'an Azure storage connection string',
    input:
      'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFy12==;EndpointSuffix=core.windows.net',
    secrets: ['Zm9vYmFy12=='],
    keep: [
      'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=',
      ';EndpointSuffix=core.windows.net',
    ],
  },
  {
    name: 'an S3 presigned URL signature',
    input:
      'https://b.s3.amazonaws.com/k?X-Amz-Expires=900&X-Amz-Signature=9f8e7d6c5b4a&x-id=GetObject',
    secrets: ['9f8e7d6c5b4a'],
    keep: ['?X-Amz-Expires=900&X-Amz-Signature=', '&x-id=GetObject'],
  },
  {
    name: 'a Rails secret_key_base',
    input: 'secret_key_base: 0123abcd4567ef',
    secrets: ['0123abcd4567ef'],
    keep: ['secret_key_base: '],
  },
];

/** Output that looks a bit like a secret and must come through byte for byte. */
const LOOK_ALIKES: readonly { readonly name: string; readonly input: string }[] = [
  { name: 'a counter whose name starts with TOKEN', input: 'TOKEN_COUNT=5' },
  {
    name: 'limits named after passwords and tokens',
    input: 'PASSWORD_MIN_LENGTH=12 TOKEN_TTL=3600',
  },
  { name: 'plural token counts in LLM usage', input: '{"max_tokens": 4096, "total_tokens": 30}' },
  {
    name: 'OAuth metadata fields',
    input: '{"token_type": "Bearer", "expires_in": 3600, "scope": "read"}',
  },
  { name: 'prose about a password', input: 'password reset email sent to alice@example.com' },
  { name: 'a git sha', input: 'HEAD is now at 3f2a9c1e5b7d4a8f9e0c1b2a3d4e5f60718293a4 fix' },
  { name: 'a UUID', input: 'request_id=123e4567-e89b-12d3-a456-426614174000 status=200' },
  { name: "'sk-' in prose", input: 'OpenAI keys start with sk- and scikit-learn is sk-learn' },
  { name: 'a Bearer of bad news', input: 'Bearer of bad news: the 02:00 backup failed' },
  {
    name: 'base64 that is not a JWT',
    input: 'data: aGVsbG8gd29ybGQ= header eyJhbGciOiJIUzI1NiJ9 done',
  },
  { name: 'AKIA inside a word and on its own', input: 'PAKIAXXXXXXXXXXXXXXXX and the AKIA prefix' },
  {
    name: 'a public key block',
    input: `-----BEGIN PUBLIC KEY-----\n${PEM_BODY.join('\n')}\n-----END PUBLIC KEY-----`,
  },
  {
    name: 'a certificate',
    input: `-----BEGIN CERTIFICATE-----\n${PEM_BODY.join('\n')}\n-----END CERTIFICATE-----`,
  },
  { name: 'an author field', input: 'author: alice\nAuthor: Bob <bob@example.com>' },
  {
    name: 'file paths that name secrets',
    input:
      'cat: /etc/passwd: No such file or directory\nDB_PASSWORD_FILE=/run/secrets/db_password\nls /run/secrets/api_token',
  },
  { name: "the shell's working directory", input: 'PWD=/home/app\nOLDPWD=/tmp' },
  {
    name: 'placeholders instead of values',
    input: 'password: ${DB_PASSWORD}\ntoken: null\nsecret: ***\napi_key: <your-key>\nauth: true',
  },
  {
    name: 'URLs without credentials and scp-style remotes',
    input: 'https://example.com:8443/path?page=2 git@github.com:org/repo.git',
  },
  {
    name: '--help text naming secret flags',
    input: '  --token TOKEN        the API token to use\nuse --password to set it',
  },
  {
    name: 'compiler positions in files named after secrets',
    input: 'token.go:42:3: undefined: foo\nsecret.yaml: line 3: mapping values are not allowed',
  },
  { name: 'keys that are not credentials', input: 'primary_key=id cache_key: users/42 key: value' },
  { name: 'test runner summaries', input: 'Tests: 12 passed, 0 failed\n# pass 12\n# fail 0' },
  { name: 'token prefixes in prose', input: 'GitHub tokens start with ghp_ or github_pat_' },
  { name: 'words containing secret words', input: 'passwordless: enabled\ntokenizer: cl100k_base' },
  { name: 'a Stripe publishable key', input: `pk_live_${fake(24)}` },
  { name: 'a header named but not sent', input: 'Authorization header missing; session: started' },
  { name: 'timestamps and ratios', input: '2026-03-01T12:00:00Z INFO ratio 3:2 done in 00:01:02' },
  { name: 'comparisons in code', input: 'if token == expected && password != "" {' },
  { name: 'a Rust path', input: 'error[E0425]: cannot find value `x` in Token::from' },
];

void describe('redactSecrets()', () => {
  for (const shape of SECRET_SHAPES) {
    void test(`redacts ${shape.name}`, () => {
      const output = redactSecrets(shape.input);
      assert.ok(output.includes(REDACTED), output);
      for (const secret of shape.secrets) {
        assert.ok(secret.length > 0);
        assert.ok(!output.includes(secret), `${JSON.stringify(secret)} survived in ${output}`);
      }
      for (const context of shape.keep) {
        assert.ok(output.includes(context), `${JSON.stringify(context)} is gone from ${output}`);
      }
      assert.equal(redactSecrets(output), output, 'redacting twice changes nothing');
    });
  }

  for (const lookAlike of LOOK_ALIKES) {
    void test(`leaves ${lookAlike.name} alone`, () => {
      assert.equal(redactSecrets(lookAlike.input), lookAlike.input);
    });
  }

  void test('covers at least 25 secret shapes and 10 look-alikes', () => {
    assert.ok(SECRET_SHAPES.length >= 25);
    assert.ok(LOOK_ALIKES.length >= 10);
  });

  void test('every well-known token format is exercised by a secret shape', () => {
    const inputs = SECRET_SHAPES.map((shape) => shape.input);
    for (const format of TOKEN_FORMATS) {
      assert.ok(
        inputs.some((input) => new RegExp(format.pattern).test(input)),
        `no sample for ${format.name}`,
      );
    }
  });

  void test('keeps line structure: CRLF endings and untouched neighbours', () => {
    const input = 'A=1\r\nPASSWORD=x1\r\nB=2\r\n';
    assert.equal(redactSecrets(input), `A=1\r\nPASSWORD=${REDACTED}\r\nB=2\r\n`);
  });

  void test('redacts every occurrence, on every line', () => {
    const input = 'run 1 token=a1\nrun 2 token=b2 and token=c3\n';
    assert.equal(
      redactSecrets(input),
      `run 1 token=${REDACTED}\nrun 2 token=${REDACTED} and token=${REDACTED}\n`,
    );
  });

  void test('an assignment that starts a line owns the rest of it (env and YAML print values unquoted)', () => {
    assert.equal(redactSecrets('token=b2 and c3\nnext'), `token=${REDACTED}\nnext`);
    assert.equal(redactSecrets('  - password: two words'), `  - password: ${REDACTED}`);
  });

  void test('merges overlapping finds into one marker', () => {
    assert.equal(redactSecrets(`GITHUB_TOKEN=${GHP}`), `GITHUB_TOKEN=${REDACTED}`);
  });

  void test('handles empty and secret-free text', () => {
    assert.equal(redactSecrets(''), '');
    assert.equal(redactSecrets('hello\nworld\n'), 'hello\nworld\n');
  });

  void test('finishes on 1 MB adversarial lines (linear time)', () => {
    const megabyte = 1 << 20;
    const fill = (unit: string): string =>
      unit.repeat(Math.ceil(megabyte / unit.length)).slice(0, megabyte);
    const adversarial = [
      'a',
      ' ',
      '-',
      'a.',
      'a=',
      'a:',
      `${'a'.repeat(127)}= `,
      'password=',
      'password="',
      '"password',
      '--password ',
      '--password x1 ',
      '-----BEGIN PRIVATE KEY-----',
      '-----BEGIN PRIVATE KEY-----\n',
      'eyJaaaaaa.',
      'eyJaaaaaa.eyJbbbbbb.',
      'a://b:',
      'a://b:c@',
      '<password>',
      '<a ',
      'ghp_',
      '12345678:',
      'Bearer ',
      'sk-',
      '\\',
      'x=1 password="a\\"b" <token>t</token> https://u:p@h/ eyJa.eyJb.c AKIAAAAAAAAAAAAAAAAA\n',
    ];
    for (const unit of adversarial) {
      const input = fill(unit);
      const output = redactSecrets(input);
      assert.equal(typeof output, 'string');
    }
    assert.equal(redactSecrets(fill('a')), fill('a'));
    assert.equal(redactSecrets(`Bearer ${fill('a')}`), `Bearer ${fill('a')}`, 'no digit, no token');
  });
});

void describe('isSecretKey()', () => {
  const secret = [
    'PASSWORD',
    'DB_PASSWORD',
    'dbPassword',
    'db-password',
    'spring.datasource.password',
    'github_token',
    'GITHUB_TOKEN_FOR_CI',
    'AWS_SECRET_ACCESS_KEY',
    'aws_access_key_id',
    'x-api-key',
    'APIKey',
    'apikey',
    'client_secret',
    'PGPASSWORD',
    'MYSQL_PWD',
    'DB_PASS',
    'GH_PAT',
    'SESSION_ID',
    'Set-Cookie',
    'Authorization',
    'private_key',
    'SIGNING_KEY',
    '_authToken',
    '--password',
    'credentials',
  ];
  const notSecret = [
    'TOKEN_COUNT',
    'max_tokens',
    'PWD',
    'OLDPWD',
    'PASS',
    'DB_PASSWORD_FILE',
    'SECRET_NAME',
    'token_type',
    'PASSWORD_MIN_LENGTH',
    'author',
    'key',
    'PRIMARY_KEY',
    'cache_key',
    'passwordless',
    'tokenizer',
    'session',
    'client_id',
    'secret.yaml',
    'password-stdin',
  ];
  for (const key of secret) {
    void test(`${key} is secret-bearing`, () => assert.ok(isSecretKey(key)));
  }
  for (const key of notSecret) {
    void test(`${key} is not`, () => assert.ok(!isSecretKey(key)));
  }
});

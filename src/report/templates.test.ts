import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeOutcome, SUCCESS } from './report-fixture.test.js';
import { makeJob, type LooseOutcome } from '../runner/testing.js';
import {
  buildTemplateVariables,
  createTemplateRenderer,
  DEFAULT_BODY_TEMPLATE,
  DEFAULT_SENTRY_BODY_TEMPLATE,
  DEFAULT_SUBJECT_TEMPLATE,
  DEFAULT_WEBHOOK_BODY_TEMPLATE,
  jinjaSource,
  renderTemplate,
  type TemplateVariables,
} from './templates.js';
import { ReportError } from './report-error.js';

function vars(outcome: Partial<LooseOutcome> = {}, name = 'backup'): TemplateVariables {
  return buildTemplateVariables(
    makeJob({ name, command: { kind: 'shell', script: 'run-backup --all' } }),
    makeOutcome(outcome),
  );
}

const renderer = createTemplateRenderer();

void test('the default body of a failure with stderr boom renders exactly as docs/reports.md "Templates" shows', async () => {
  assert.equal(
    await renderer.render(DEFAULT_BODY_TEMPLATE, vars()),
    '\n(job failed because failsWhen=nonzeroReturn and retcode=1)\n\nboom\n\n',
  );
});

void test('the default body of a success with nothing captured renders exactly as docs/reports.md "Templates" shows', async () => {
  assert.equal(
    await renderer.render(DEFAULT_BODY_TEMPLATE, vars(SUCCESS)),
    '\n\n(no output was captured)\n',
  );
  // Not captured at all (null) reads the same as captured-but-empty.
  assert.equal(
    await renderer.render(DEFAULT_BODY_TEMPLATE, vars({ ...SUCCESS, stdout: null, stderr: null })),
    '\n\n(no output was captured)\n',
  );
});

void test('the default body shows both outputs under STDOUT:/STDERR: headings, or the one there is', async () => {
  const both = {
    stdout: { text: 'out\n', discardedLines: 0, truncated: false },
    stderr: { text: 'err\n', discardedLines: 0, truncated: false },
  };
  assert.equal(
    await renderer.render(DEFAULT_BODY_TEMPLATE, vars(both)),
    '\n(job failed because failsWhen=nonzeroReturn and retcode=1)\n\n' +
      'STDOUT:\n---\nout\n\n---\nSTDERR:\nerr\n\n',
  );
  assert.equal(
    await renderer.render(
      DEFAULT_BODY_TEMPLATE,
      vars({ ...SUCCESS, stdout: { text: 'only out', discardedLines: 0, truncated: false } }),
    ),
    '\n\nonly out\n',
  );
});

void test('the default subject says completed or failed', async () => {
  assert.equal(await renderer.render(DEFAULT_SUBJECT_TEMPLATE, vars()), "Cron job 'backup' failed");
  assert.equal(
    await renderer.render(DEFAULT_SUBJECT_TEMPLATE, vars(SUCCESS)),
    "Cron job 'backup' completed",
  );
});

void test('the default Sentry body is the subject, a newline, then the body', async () => {
  assert.equal(
    await renderer.render(DEFAULT_SENTRY_BODY_TEMPLATE, vars()),
    "Cron job 'backup' failed\n" +
      '\n(job failed because failsWhen=nonzeroReturn and retcode=1)\n\nboom\n\n',
  );
});

void test('the default webhook body is {"text": ...} through Jinja\'s tojson', async () => {
  const variables = vars({
    stderr: { text: `it's <b> & "q" é 😀\n`, discardedLines: 0, truncated: false },
  });
  const rendered = await renderer.render(DEFAULT_WEBHOOK_BODY_TEMPLATE, variables);
  assert.equal(
    rendered,
    '{"text": "Cron job \\u0027backup\\u0027 failed\\n\\n(job failed because ' +
      'failsWhen=nonzeroReturn and retcode=1)\\n\\nit\\u0027s \\u003cb\\u003e \\u0026 ' +
      '\\"q\\" \\u00e9 \\ud83d\\ude00\\n\\n"}',
  );
  const parsed = JSON.parse(rendered) as { text: string };
  const subject = await renderer.render(DEFAULT_SUBJECT_TEMPLATE, variables);
  const body = await renderer.render(DEFAULT_BODY_TEMPLATE, variables);
  assert.equal(parsed.text, `${subject}\n${body}`);
});

void test('templates see every variable of docs/reports.md "Templates"', async () => {
  const variables = buildTemplateVariables(
    makeJob({ name: 'j', command: { kind: 'argv', argv: ['echo', 'hi'] }, shell: '/bin/bash' }),
    makeOutcome({
      exitCode: -15,
      stdout: { text: 'o', discardedLines: 0, truncated: false },
      environment: { HOSTNAME: 'box', A: '1' },
    }),
  );
  assert.deepEqual(variables, {
    name: 'j',
    success: false,
    fail_reason: 'failsWhen=nonzeroReturn and retcode=1',
    stdout: 'o',
    stderr: 'boom\n',
    exit_code: -15,
    command: ['echo', 'hi'],
    shell: '/bin/bash',
    environment: { HOSTNAME: 'box', A: '1' },
    cpu_seconds: null,
    cpu_user_seconds: null,
    cpu_system_seconds: null,
    max_rss_bytes: null,
  });
  assert.equal(
    await renderer.render(
      '{{ name }}|{{ exit_code }}|{{ command[1] }}|{{ shell }}|{{ environment.HOSTNAME }}',
      variables,
    ),
    'j|-15|hi|/bin/bash|box',
  );
});

void test('a monitored run`s usage fills cpu_* and max_rss_bytes with its run record`s numbers', async () => {
  const variables = buildTemplateVariables(makeJob({ name: 'j' }), makeOutcome(), {
    cpuUserSeconds: 0.1,
    cpuSystemSeconds: 0.2,
    cpuTotalSeconds: 0.3,
    maxRssBytes: 52_428_800,
    samples: 3,
  });
  assert.deepEqual(
    {
      cpu_seconds: variables.cpu_seconds,
      cpu_user_seconds: variables.cpu_user_seconds,
      cpu_system_seconds: variables.cpu_system_seconds,
      max_rss_bytes: variables.max_rss_bytes,
    },
    { cpu_seconds: 0.3, cpu_user_seconds: 0.1, cpu_system_seconds: 0.2, max_rss_bytes: 52_428_800 },
  );
  assert.equal(
    await renderer.render(
      '{{ cpu_seconds }} s, {{ (max_rss_bytes / 1048576) | round }} MiB',
      variables,
    ),
    '0.3 s, 50 MiB',
  );
});

void test('values print as Python would: None, True/False, lists and dicts', async () => {
  const variables = vars({ ...SUCCESS, stdout: null });
  assert.equal(
    await renderer.render(
      '{{ success }} {{ not success }} {{ fail_reason }} {{ stdout }} {{ cpu_seconds }} {{ command }}',
      variables,
    ),
    'True False None None None run-backup --all',
  );
  assert.equal(
    await renderer.render('{{ command }} {{ {"a": 1, "b": [True, None]} }}', {
      ...variables,
      command: ['echo', "it's"],
    }),
    `['echo', "it's"] {'a': 1, 'b': [True, None]}`,
  );
});

void test('environment.HOSTNAME renders empty when no environment was built, like Jinja Undefined', async () => {
  assert.equal(await renderer.render('[{{ environment.HOSTNAME }}][{{ nope }}]', vars()), '[][]');
});

void test('Jinja idioms work: -%} whitespace control, dict.items(), slices, filter blocks', async () => {
  const variables = vars({ environment: { B: '2', A: '1' } });
  assert.equal(
    await renderer.render(
      '{% for k, v in environment.items() -%}\n{{ k }}={{ v }};{% endfor %}' +
        '{{ name[1:3] }}{% filter upper %}x{{ name }}{% endfilter %}',
      variables,
    ),
    'B=2;A=1;acXBACKUP',
  );
  assert.equal(
    await renderer.render(
      '{{ {"b": 1, "a": "<"} | tojson }} {{ [1] | tojson(indent=2) }}',
      variables,
    ),
    '{"a": "\\u003c", "b": 1} [\n  1\n]',
  );
});

void test('one trailing newline of the source is dropped and \\r\\n becomes \\n, as in Jinja', async () => {
  assert.equal(jinjaSource('a\n'), 'a');
  assert.equal(jinjaSource('a\n\n'), 'a\n');
  assert.equal(jinjaSource('a\r\nb\r\n'), 'a\nb');
  assert.equal(jinjaSource('\n'), '');
  assert.equal(await renderer.render('{{ name }}\n', vars()), 'backup');
  assert.equal(await renderer.render('{{ name }}\n\n', vars()), 'backup\n');
});

void test('each distinct source is compiled once', async () => {
  const own = createTemplateRenderer(2);
  await Promise.all([own.render('{{ name }}', vars()), own.render('{{ name }}', vars())]);
  await own.render('{{ name }}', vars({}, 'other'));
  assert.equal(own.compilations, 1);
  assert.equal(await own.render('{{ name }}', vars({}, 'third')), 'third');
  await own.render('a{{ name }}', vars());
  assert.equal(own.compilations, 2);
  // Past the cache size the least recently used source is compiled again.
  await own.render('b{{ name }}', vars());
  await own.render('c{{ name }}', vars());
  await own.render('{{ name }}', vars());
  assert.equal(own.compilations, 5);
});

void test('a broken template becomes a ReportError naming the reporter and the key', async () => {
  await assert.rejects(
    renderTemplate(renderer, 'mail', 'subject', '{% if %}', DEFAULT_SUBJECT_TEMPLATE, vars()),
    (error: unknown) =>
      error instanceof ReportError &&
      error.reporter === 'mail' &&
      error.message.startsWith('Cannot render the mail subject template: '),
  );
  await assert.rejects(
    renderTemplate(renderer, 'webhook', 'body', '{{ x | nosuch }}', '', vars()),
    /Cannot render the webhook body template: .*filter not found: nosuch/,
  );
  assert.equal(
    await renderTemplate(renderer, 'mail', 'subject', null, DEFAULT_SUBJECT_TEMPLATE, vars()),
    "Cron job 'backup' failed",
  );
});

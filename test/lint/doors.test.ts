// The `yacron/doors` lint rule (scripts/eslint-doors.mjs) run through ESLint's Linter on made-up
// files: a deep import across a folder door fails, the door passes, a shipped module importing
// a folder above it fails, tests may use testing.ts doors, and the rule's layer order is the one
// docs/architecture.md draws.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { Linter } from 'eslint';
import doors, { LAYERS } from '../../scripts/eslint-doors.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = `${ROOT}src`;

function lint(file: string, specifier: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    `import { x } from '${specifier}';\nexport { x };\n`,
    [
      {
        files: ['**/*.ts'],
        plugins: { yacron: doors },
        rules: { 'yacron/doors': ['error', { srcRoot: SRC, layers: LAYERS }] },
      },
    ],
    { filename: `${ROOT}${file}` },
  );
  return messages.map((message) => message.message);
}

describe('yacron/doors', () => {
  test('a deep import across a door fails, naming the door', () => {
    const messages = lint('src/daemon/durable-backend.ts', '../state/service.js');
    assert.equal(messages.length, 1);
    assert.match(
      messages[0]!,
      /^Deep import across the state\/ door: import src\/state\/index\.ts,/,
    );
    assert.match(messages[0]!, /not src\/state\/service\.ts/);
  });

  test('the door, a nested folder door and imports inside a folder pass', () => {
    assert.deepEqual(lint('src/daemon/durable-backend.ts', '../state/index.js'), []);
    assert.deepEqual(lint('src/cli/commands/state-admin.ts', '../../state/admin/index.js'), []);
    assert.deepEqual(lint('src/state/admin/gc.ts', '../fs-store.js'), []);
    assert.deepEqual(lint('src/state/fs-store.ts', './fs-files.js'), []);
  });

  test('shipped code does not import a folder above it or beside it', () => {
    const up = lint('src/scheduler/launcher.ts', '../http/index.js');
    assert.equal(up.length, 1);
    assert.match(up[0]!, /^scheduler\/ must not import http\/: imports flow down the layer order/);
    assert.equal(lint('src/common/clock.ts', '../config/index.js').length, 1);
    assert.equal(lint('src/cli/main.ts', '../web/main.js').length, 2); // no door, and beside
    assert.deepEqual(lint('src/http/routes.ts', '../scheduler/index.js'), []);
  });

  test('a folder the layer order does not place is named', () => {
    const messages = lint('src/dag/plan.ts', '../scheduler/index.js');
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /^src\/dag\/ has no place in the layer order/);
  });

  test('tests use index.ts or testing.ts doors, in any direction', () => {
    assert.deepEqual(lint('src/durable/durable-state.test.ts', '../http/index.js'), []);
    assert.deepEqual(lint('src/report/mail.test.ts', '../runner/testing.js'), []);
    assert.deepEqual(lint('test/e2e/cli.test.ts', '../../src/cluster/testing.js'), []);
    assert.equal(lint('src/report/mail.test.ts', '../runner/test-job-fixture.js').length, 1);
    assert.equal(lint('test/e2e/cli.test.ts', '../../src/state/fs-store.js').length, 1);
    // shipped code does not get the testing.ts door
    assert.equal(lint('src/report/mail.ts', '../runner/testing.js').length, 1);
  });

  test('the layer order is the picture in docs/architecture.md', () => {
    const doc = readFileSync(`${ROOT}docs/architecture.md`, 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('## The scheduler core'));
    const picture = section.slice(section.indexOf('```'), section.lastIndexOf('```'));
    const drawn = [...picture.matchAll(/^([a-z]+)\/(?: *\|? *([a-z]+)\/)?/gm)].map((m) =>
      [m[1], m[2]].filter((name): name is string => name !== undefined),
    );
    assert.deepEqual(drawn, LAYERS);
  });
});

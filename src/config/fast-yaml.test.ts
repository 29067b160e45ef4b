// The fast block-YAML reader against the `yaml` package: on everything the fast reader accepts
// the trees are identical, and it never accepts what the package rejects (fast-yaml.ts).
import { seededRandom } from '../common/index.js';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { fastParseYaml, UNSUPPORTED } from './fast-yaml.js';
import { parseWithYamlPackage } from './yaml-tree.js';

/** Compare one document; returns whether the fast reader took it. */
async function agree(text: string): Promise<boolean> {
  const fast = fastParseYaml(text);
  const reference = await parseWithYamlPackage(text, 'x.yaml');
  if (fast === UNSUPPORTED) return false;
  assert.deepEqual(reference.issues, [], `fast reader accepted invalid YAML:\n${text}`);
  assert.deepEqual(fast, reference.root, `trees differ for:\n${text}`);
  return true;
}

const TAKEN: readonly string[] = [
  '',
  '# only a comment\n',
  '---\njobs:\n',
  'jobs:\n  - name: a\n    command: echo hi # trailing comment\n    schedule: "*/5 * * * *"\n',
  'jobs:\n- name: a\n  command:\n  - echo\n  - a b\n',
  'a:\nb: ""\nc: \'\'\nd: ~\ne: null\nf: 010\n',
  'k: "esc \\" \\\\ \\n \\t \\u00e9 \\x41 \\U0001F600"\n',
  "k: 'it''s # not a comment'\n",
  'k: a#b\nl: x # y\nm: -1\nn: http://example.com/a?b=c\n',
  'cmd: |\n  echo one\n\n  echo two\n    indented\n# comment after\nnext: 1\n',
  'cmd: |-\n  no trailing newline\nnext: 1\n',
  'cmd: >\n  folded\n  text here\n',
  'cmd: >-\n  folded\n  stripped\n',
  'list:\n  -\n  - x\n  - - nested\n    - seq\n  - key: v\n    other: w\n',
  'outer:\n  inner:\n    deep: value\n  sibling: 2\n',
  'headers:\n  X-Token: abc\n  Content-Type: text/plain\n',
  'k: ünïcödé ☃\n',
  'schedule:\n  minute: "0"\n  hour: "*/3"\n',
  '  indented: root\n  second: key\n',
];

void test('the fast reader takes plain block configs and agrees with the yaml package', async () => {
  for (const text of TAKEN) assert.equal(await agree(text), true, `not taken:\n${text}`);
});

const LEFT_TO_YAML: readonly string[] = [
  'a: {x: 1}\n',
  'a: [1, 2]\n',
  'a: &x 1\nb: *x\n',
  'a: !!str 1\n',
  'a: 1\na: 2\n',
  'a: b: c\n',
  '- a\n---\n- b\n',
  'a:\n\t- x\n',
  'a: "multi\n  line"\n',
  'a: plain\n  continued\n',
  '"quoted key": 1\n',
  'key with space: 1\n',
  '? complex\n: value\n',
  'a: |+\n  keep\n\n',
  'a: |2\n   explicit indent\n',
  'a: >\n  folded\n\n  paragraph\n',
  '%YAML 1.2\n---\na: 1\n',
  'a: 1\n...\n',
  'a: @reserved\n',
  'a:1\n',
  'a: 1\r\nb: 2\r\n',
  'a:\n  b: 1\n c: 2\n',
];

void test('anything outside the subset is left to the yaml package', async () => {
  for (const text of LEFT_TO_YAML) assert.equal(await agree(text), false, `taken:\n${text}`);
});

const NORMAL_STRINGS = [
  'plain',
  'two words',
  '/usr/bin/x --flag',
  '0 3 * * *',
  'a@b.c',
  'x#y',
  '-1',
  'é ☃',
];
const TRICKY_STRINGS = [
  '',
  ' ',
  'plain',
  'two words',
  ' lead',
  'trail ',
  'a: b',
  'a:b',
  '#hash',
  'x #y',
  'x#y',
  'multi\nline',
  'multi\nline\n',
  'end\n\n',
  '- dash',
  '-1',
  '@at',
  '`tick',
  "it's",
  'say "hi"',
  'back\\slash',
  'yes',
  '~',
  'null',
  '0o17',
  '1e3',
  'ünï ☃',
  '{brace',
  '[bracket',
  'a, b',
  '*star',
  '&amp',
  '!bang',
  '|pipe',
  '>gt',
  '%pct',
  '?q',
  ': colon',
  '---',
  '...',
  'very long line '.repeat(8),
];
const NORMAL_KEYS = ['a', 'name', 'X-Token', 'dayOfMonth', '0', 'a.b', 'b_c', 'd/e'];
const TRICKY_KEYS = ['with space', '-dash', 'ключ', 'q"uote', 'k:v', ''];

function generate(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const roll = next();
  if (depth >= 3 || roll < 0.45) return pick(next() < 0.75 ? NORMAL_STRINGS : TRICKY_STRINGS);
  if (roll < 0.75) {
    const map: Record<string, unknown> = {};
    const size = 1 + Math.floor(next() * 4);
    for (let index = 0; index < size; index++) {
      map[pick(next() < 0.9 ? NORMAL_KEYS : TRICKY_KEYS)] = generate(next, depth + 1);
    }
    return map;
  }
  return Array.from({ length: 1 + Math.floor(next() * 3) }, () => generate(next, depth + 1));
}

void test('randomly generated documents: identical trees whenever the fast reader takes one', async () => {
  const next = seededRandom(20260101);
  let taken = 0;
  const styles = [
    'PLAIN',
    'QUOTE_DOUBLE',
    'QUOTE_SINGLE',
    'BLOCK_LITERAL',
    'BLOCK_FOLDED',
  ] as const;
  for (let round = 0; round < 400; round++) {
    const value = { root: generate(next, 0) };
    const text = stringify(value, {
      indentSeq: next() < 0.5,
      indent: next() < 0.5 ? 2 : 4,
      lineWidth: next() < 0.5 ? 0 : 24,
      defaultStringType: styles[Math.floor(next() * styles.length)]!,
      defaultKeyType: 'PLAIN',
    });
    if (await agree(text)) taken++;
  }
  assert.ok(taken > 100, `the fast reader took only ${taken} of 400 documents`);
});

const SEEDS = [
  'defaults:\n  shell: /bin/bash\njobs:\n  - name: a\n    command: |\n      echo "one"\n    schedule: "*/5 * * * *"\n    environment:\n      - key: A\n        value: \'1\'\n',
  'jobs:\n- name: b\n  command:\n  - echo\n  - x # c\n  schedule:\n    minute: "0"\n  onFailure:\n    report:\n      mail:\n        to: a@b\n',
];
const MUTATIONS = [' ', '  ', '-', ':', '#', '"', "'", '\n', '- ', ': ', '|', '>', '{', '&', 'x'];

void test('mutated configs: the fast reader never accepts what the yaml package rejects', async () => {
  const next = seededRandom(42);
  let taken = 0;
  for (let round = 0; round < 600; round++) {
    const seed = SEEDS[round % SEEDS.length]!;
    let text = seed;
    for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
      const at = Math.floor(next() * text.length);
      const cut = next() < 0.4 ? 1 + Math.floor(next() * 3) : 0;
      const insert = next() < 0.7 ? MUTATIONS[Math.floor(next() * MUTATIONS.length)]! : '';
      text = text.slice(0, at) + insert + text.slice(at + cut);
    }
    if (await agree(text)) taken++;
  }
  assert.ok(taken > 100, `the fast reader took only ${taken} of 600 mutants`);
});

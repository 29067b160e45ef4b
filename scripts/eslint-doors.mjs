// The `yacron/doors` lint rule: folder doors and the layer order of docs/architecture.md#layers.
// A relative import that crosses from one src/ folder into another must go through that folder's
// door (its index.ts, or a nested folder's index.ts; a test may also use its testing.ts), and
// shipped code must point down the layer order. Tests (and test/, bench/) are held to the doors
// only. Imports inside one folder, and
// imports outside src/, are not this rule's business.
// Must not: read type information or the file system (it decides from the two paths alone, so
// it is cheap and its verdict does not depend on what exists).
import path from 'node:path';

/**
 * The layer order of docs/architecture.md#layers, top first: a folder's shipped code imports only
 * folders in later groups; folders in one group do not import each other. The test in
 * test/lint/doors.test.ts holds this list and the picture in the docs to the same order.
 */
export const LAYERS = [
  ['cli', 'web'],
  ['daemon'],
  ['http'],
  ['jobapi'],
  ['dags'],
  ['cluster'],
  ['durable'],
  ['metrics'],
  ['leadership'],
  ['scheduler'],
  ['report'],
  ['resources'],
  ['state'],
  ['runner'],
  ['config'],
  ['schedule'],
  ['logging'],
  ['common'],
];

const TEST_FILE = /(\.test|\.contract)\.ts$|(^|\/)(testing|test-[^/]*)\.ts$/;
// A folder's door, or the door of a folder inside it (state/admin/index.ts: loaded lazily).
const DOOR = /^([^/]+\/)*index\.(js|ts)$/;
const TEST_DOOR = /^testing\.(js|ts)$/;

/** @type {import('eslint').Rule.RuleModule} */
export const doorsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Folder doors and the layer order (docs/architecture.md#layers).' },
    schema: [
      {
        type: 'object',
        properties: {
          srcRoot: { type: 'string' },
          layers: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
          deepAllowed: { type: 'object', additionalProperties: { type: 'array' } },
        },
        required: ['srcRoot', 'layers'],
        additionalProperties: false,
      },
    ],
    messages: {
      door:
        'Deep import across the {{to}}/ door: import src/{{to}}/index.ts{{orTesting}}, not ' +
        'src/{{to}}/{{rest}} (docs/architecture.md#layers).',
      layer:
        '{{from}}/ must not import {{to}}/: imports flow down the layer order, and {{to}}/ ' +
        'is not below {{from}}/ (docs/architecture.md#layers).',
      unplaced:
        'src/{{folder}}/ has no place in the layer order: add it to LAYERS in ' +
        'eslint.config.js and to the picture in docs/architecture.md#layers.',
    },
  },
  create(context) {
    const { srcRoot, layers, deepAllowed = {} } = context.options[0];
    const rank = new Map();
    layers.forEach((group, index) => group.forEach((folder) => rank.set(folder, index)));
    const file = context.physicalFilename;
    const fromRel = path.relative(srcRoot, file).split(path.sep);
    const insideSrc = fromRel[0] !== '..';
    const fromFolder = insideSrc && fromRel.length > 1 ? fromRel[0] : null;
    const isTest = !insideSrc || TEST_FILE.test(file.split(path.sep).join('/'));

    function check(node, specifier) {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), specifier);
      const toRel = path.relative(srcRoot, target).split(path.sep);
      if (toRel[0] === '..' || toRel.length < 2) return;
      const to = toRel[0];
      if (to === fromFolder) return;
      const rest = toRel.slice(1).join('/');
      const deepOk = fromFolder !== null && (deepAllowed[fromFolder] ?? []).includes(to);
      const door = DOOR.test(rest) || (isTest && TEST_DOOR.test(rest));
      if (!door && !deepOk) {
        context.report({
          node,
          messageId: 'door',
          data: {
            to,
            rest: rest.replace(/\.js$/, '.ts'),
            orTesting: isTest ? ' or testing.ts' : '',
          },
        });
      }
      // Tests sit above every layer (a durable test may render through http/); they still
      // use the doors.
      if (fromFolder === null || isTest) return;
      for (const folder of [fromFolder, to]) {
        if (!rank.has(folder)) {
          context.report({ node, messageId: 'unplaced', data: { folder } });
          return;
        }
      }
      if (rank.get(to) <= rank.get(fromFolder)) {
        context.report({ node, messageId: 'layer', data: { from: fromFolder, to } });
      }
    }

    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) =>
        node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

export default { rules: { doors: doorsRule } };

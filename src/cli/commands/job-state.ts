// `yacron2 state get|set|delete|keys`: the durable key/value map of the job API (docs/job-state.md,
// docs/http-api.md kv/*). Thin: one request each (`keys` pages through a big scope); the admin
// actions of `state` live elsewhere.
import {
  EXIT_NOT_FOUND,
  EXIT_OK,
  fail,
  printLines,
  printValue,
  requestJson,
  scopeOf,
  type JobCommand,
} from '../job-client/job-command.js';
import { acknowledgement, deleteReply, keysPageReply, valueReply } from '../job-client/wire.js';

const KEY = { name: 'KEY', help: 'the key' } as const;
/** Keys asked for per kv/list request. */
const KEYS_PAGE = '1000';

export const stateCommand: JobCommand = {
  name: 'state',
  summary: "The job's durable key/value map.",
  actions: [
    {
      name: 'get',
      usageName: 'yacron2 state get',
      summary: 'Print the value stored under KEY (exit 4 when there is none).',
      positionals: [KEY],
      options: [],
      scoped: true,
      async run(context, args) {
        const key = args.positional(0);
        const body = await requestJson(
          context,
          {
            method: 'GET',
            path: '/v1/kv/get',
            query: { key, ...scopeOf(args) },
          },
          valueReply,
          `key not found: ${key}`,
        );
        return typeof body === 'number' ? body : printValue(context, body);
      },
    },
    {
      name: 'set',
      usageName: 'yacron2 state set',
      summary: 'Store VALUE under KEY, as a string or (with --json) as parsed JSON.',
      positionals: [KEY, { name: 'VALUE', help: 'the value' }],
      options: [{ key: 'json', long: '--json', kind: 'flag', help: 'parse VALUE as JSON' }],
      scoped: true,
      async run(context, args) {
        const text = args.positional(1);
        let value: unknown = text;
        if (args.flag('json')) {
          try {
            value = JSON.parse(text);
          } catch (error) {
            return fail(context, `VALUE is not valid JSON: ${(error as Error).message}`);
          }
        }
        const body = await requestJson(
          context,
          {
            method: 'POST',
            path: '/v1/kv/set',
            json: { ...scopeOf(args), key: args.positional(0), value },
          },
          acknowledgement,
        );
        return typeof body === 'number' ? body : EXIT_OK;
      },
    },
    {
      name: 'delete',
      usageName: 'yacron2 state delete',
      summary: 'Delete KEY (exit 4 when it did not exist).',
      positionals: [KEY],
      options: [],
      scoped: true,
      async run(context, args) {
        const key = args.positional(0);
        const body = await requestJson(
          context,
          {
            method: 'POST',
            path: '/v1/kv/delete',
            json: { ...scopeOf(args), key },
          },
          deleteReply,
        );
        if (typeof body === 'number') return body;
        return body.existed ? EXIT_OK : fail(context, `key not found: ${key}`, EXIT_NOT_FOUND);
      },
    },
    {
      name: 'keys',
      usageName: 'yacron2 state keys',
      summary: 'Print the keys of the scope, one per line, sorted.',
      positionals: [],
      options: [],
      scoped: true,
      async run(context, args) {
        // Keys only, a page at a time; an endpoint without paging answers everything at once.
        const keys: string[] = [];
        let after: string | undefined;
        for (;;) {
          const body = await requestJson(
            context,
            {
              method: 'GET',
              path: '/v1/kv/list',
              query: { ...scopeOf(args), limit: KEYS_PAGE, values: '0', after },
            },
            keysPageReply,
          );
          if (typeof body === 'number') return body;
          keys.push(...body.keys);
          if (body.next === null) break;
          after = body.next;
        }
        printLines(context, keys.sort());
        return EXIT_OK;
      },
    },
  ],
};

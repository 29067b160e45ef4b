// `yacron2 cursor get|advance`: a monotonic watermark of the job API (docs/cli.md "Job-facing
// commands", docs/http-api.md "The job API" cursor/*). A rewind is `advance --force`; there is no
// `cursor set`.
import { parsePythonFloat, parsePythonInt } from '../job-client/parse-args.js';
import {
  fail,
  printValue,
  requestJson,
  scopeOf,
  type JobCommand,
} from '../job-client/job-command.js';
import { valueReply } from '../job-client/wire.js';

const NAME = { name: 'NAME', help: 'the cursor name' } as const;

/**
 * The reference types VALUE as int, else float, else string, so numbers compare numerically
 * (9 < 10) and ISO dates as strings. Python's float() also reads inf and nan, which JSON cannot
 * carry: those are null here and refused.
 */
export function typeCursorValue(text: string): number | string | null {
  const integer = parsePythonInt(text);
  if (integer !== null) return integer;
  const float = parsePythonFloat(text);
  if (float !== null) return float;
  return /^\s*[+-]?(inf(inity)?|nan)\s*$/i.test(text) ? null : text;
}

export const cursorCommand: JobCommand = {
  name: 'cursor',
  summary: 'A monotonic watermark that never moves backwards.',
  actions: [
    {
      name: 'get',
      usageName: 'yacron2 cursor get',
      summary: 'Print the value of cursor NAME (exit 4 when it was never set).',
      positionals: [NAME],
      options: [],
      scoped: true,
      async run(context, args) {
        const name = args.positional(0);
        const body = await requestJson(
          context,
          {
            method: 'GET',
            path: '/v1/cursor/get',
            query: { name, ...scopeOf(args) },
          },
          valueReply,
          `cursor not set: ${name}`,
        );
        return typeof body === 'number' ? body : printValue(context, body);
      },
    },
    {
      name: 'advance',
      usageName: 'yacron2 cursor advance',
      summary:
        'Move cursor NAME to VALUE if that is further than where it is, and print where it is now.',
      positionals: [NAME, { name: 'VALUE', help: 'an integer, a number, or any other text' }],
      options: [
        {
          key: 'force',
          long: '--force',
          kind: 'flag',
          help: 'set VALUE even if it moves the cursor backwards',
        },
      ],
      scoped: true,
      async run(context, args) {
        const text = args.positional(1);
        const value = typeCursorValue(text);
        if (value === null) return fail(context, `VALUE cannot be stored as JSON: ${text}`);
        const body = await requestJson(
          context,
          {
            method: 'POST',
            path: '/v1/cursor/advance',
            json: {
              ...scopeOf(args),
              name: args.positional(0),
              value,
              ...(args.flag('force') ? { force: true } : {}),
            },
          },
          valueReply,
        );
        return typeof body === 'number' ? body : printValue(context, body);
      },
    },
  ],
};

// `yacron2 secret get|list`: the secrets staged for this run only (docs/cli.md "Job-facing
// commands", docs/http-api.md "The job API" secret/*). No scope flags: a secret belongs to the run,
// not to a scope.
import {
  EXIT_OK,
  printLines,
  printValue,
  requestJson,
  type JobCommand,
} from '../job-client/job-command.js';
import { secretListReply, valueReply } from '../job-client/wire.js';

export const secretCommand: JobCommand = {
  name: 'secret',
  summary: 'The secrets staged for this run.',
  actions: [
    {
      name: 'get',
      usageName: 'yacron2 secret get',
      summary: 'Print secret NAME (exit 4 when it was not staged for this run).',
      positionals: [{ name: 'NAME', help: 'the secret name' }],
      options: [],
      scoped: false,
      async run(context, args) {
        const name = args.positional(0);
        const body = await requestJson(
          context,
          { method: 'GET', path: '/v1/secret/get', query: { name } },
          valueReply,
          `secret not staged: ${name}`,
        );
        return typeof body === 'number' ? body : printValue(context, body);
      },
    },
    {
      name: 'list',
      usageName: 'yacron2 secret list',
      summary: 'Print the names of the staged secrets (not their values), one per line.',
      positionals: [],
      options: [],
      scoped: false,
      async run(context) {
        const body = await requestJson(
          context,
          { method: 'GET', path: '/v1/secret/list' },
          secretListReply,
        );
        if (typeof body === 'number') return body;
        printLines(context, body.names);
        return EXIT_OK;
      },
    },
  ],
};

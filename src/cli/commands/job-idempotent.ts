// `yacron2 idempotent KEY [--ttl S] [--release]`: claim a key once, fleet-wide (docs/cli.md
// "Job-facing commands", docs/http-api.md "The job API" idempotency/*). Exit 0 = this caller won, 5
// = someone already had it; an outage exits 1, so it is never mistaken for "already done".
import {
  EXIT_DUPLICATE,
  EXIT_OK,
  requestJson,
  scopeOf,
  type JobCommand,
} from '../job-client/job-command.js';
import { acknowledgement, claimReply } from '../job-client/wire.js';

export const idempotentCommand: JobCommand = {
  name: 'idempotent',
  summary: 'Claim a key once.',
  actions: [
    {
      name: null,
      usageName: 'yacron2 idempotent',
      summary:
        'Claim KEY: exit 0 if this call won it, 5 if it was already claimed. --release drops a claim.',
      positionals: [{ name: 'KEY', help: 'the idempotency key' }],
      options: [
        {
          key: 'ttl',
          long: '--ttl',
          kind: 'float',
          metavar: 'SECONDS',
          help: 'the claim expires after SECONDS (default 0: never)',
        },
        {
          key: 'release',
          long: '--release',
          kind: 'flag',
          help: 'drop the claim so the key can be won again (exit 0 either way)',
        },
      ],
      scoped: true,
      async run(context, args) {
        const key = args.positional(0);
        if (args.flag('release')) {
          const body = await requestJson(
            context,
            {
              method: 'POST',
              path: '/v1/idempotency/release',
              json: { ...scopeOf(args), key },
            },
            acknowledgement,
          );
          return typeof body === 'number' ? body : EXIT_OK;
        }
        const body = await requestJson(
          context,
          {
            method: 'POST',
            path: '/v1/idempotency/claim',
            json: { ...scopeOf(args), key, ttl: args.number('ttl') ?? 0 },
          },
          claimReply,
        );
        if (typeof body === 'number') return body;
        return body.fresh ? EXIT_OK : EXIT_DUPLICATE;
      },
    },
  ],
};

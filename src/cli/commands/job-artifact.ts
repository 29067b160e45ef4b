// `yacron2 artifact put|get|list`: named, content-addressed blobs of the job API (docs/cli.md
// "Job-facing commands", docs/http-api.md "The job API" artifact/*). Bytes pass through untouched;
// a download whose sha256 does not match the one the endpoint announced is refused rather than
// written.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import {
  EXIT_OK,
  fail,
  printLines,
  requestBytes,
  requestJson,
  scopeOf,
  type JobCommand,
  type JobContext,
} from '../job-client/job-command.js';
import { artifactListReply, artifactPutReply } from '../job-client/wire.js';

const NAME = { name: 'NAME', help: 'the artifact name' } as const;

/** `-o/--output FILE` of the commands that download bytes. */
export const OUTPUT_OPTION = {
  key: 'output',
  long: '--output',
  short: '-o',
  kind: 'string',
  metavar: 'FILE',
  help: 'where to write the bytes (default, or -: stdout)',
} as const;

export const artifactCommand: JobCommand = {
  name: 'artifact',
  summary: 'Named blobs that later runs (or other nodes) read back.',
  actions: [
    {
      name: 'put',
      usageName: 'yacron2 artifact put',
      summary: 'Publish FILE (or stdin) as the newest version of NAME and print its sha256.',
      positionals: [
        NAME,
        { name: 'FILE', optional: true, help: 'the file to publish; - or none = stdin' },
      ],
      options: [],
      scoped: true,
      async run(context, args) {
        const bytes = await readInput(context, args.positionals[1]);
        if (typeof bytes === 'number') return bytes;
        const sha256 = await putArtifact(
          context,
          { name: args.positional(0), ...scopeOf(args) },
          bytes,
        );
        if (typeof sha256 === 'number') return sha256;
        context.stdout(`${sha256}\n`);
        return EXIT_OK;
      },
    },
    {
      name: 'get',
      usageName: 'yacron2 artifact get',
      summary: 'Write the newest version of NAME to FILE or stdout (exit 4 when there is none).',
      positionals: [NAME],
      options: [OUTPUT_OPTION],
      scoped: true,
      async run(context, args) {
        const name = args.positional(0);
        return getArtifact(
          context,
          { name, ...scopeOf(args) },
          `artifact not found: ${name}`,
          args.string('output'),
        );
      },
    },
    {
      name: 'list',
      usageName: 'yacron2 artifact list',
      summary: 'Print the artifact names of the scope, one per line.',
      positionals: [],
      options: [],
      scoped: true,
      async run(context, args) {
        return listArtifacts(context, scopeOf(args));
      },
    },
  ],
};

/** FILE's bytes, or stdin's for none or `-`; an exit code when unreadable. */
export async function readInput(
  context: JobContext,
  file: string | undefined,
): Promise<Buffer | number> {
  try {
    return file === undefined || file === '-' ? await context.readStdin() : await readFile(file);
  } catch (error) {
    return fail(context, `cannot read ${file ?? 'stdin'}: ${(error as Error).message}`);
  }
}

/** Publish `bytes` under `query.name`; the sha256, or an exit code. */
export async function putArtifact(
  context: JobContext,
  query: { readonly name: string; readonly scope?: string },
  bytes: Buffer,
): Promise<string | number> {
  const body = await requestJson(
    context,
    {
      method: 'POST',
      path: '/v1/artifact/put',
      query,
      bytes,
    },
    artifactPutReply,
  );
  return typeof body === 'number' ? body : body.sha256;
}

/**
 * Write the newest version of `query.name` to `output` (stdout for none or `-`); `notFound` is the
 * exit-4 message. A download whose sha256 is not the announced one is refused, not written.
 */
export async function getArtifact(
  context: JobContext,
  query: { readonly name: string; readonly scope?: string },
  notFound: string,
  output: string | undefined,
): Promise<number> {
  const reply = await requestBytes(
    context,
    { method: 'GET', path: '/v1/artifact/get', query },
    notFound,
  );
  if (typeof reply === 'number') return reply;
  const announced = reply.headers['x-yacron2-sha256'];
  if (typeof announced === 'string' && announced !== '') {
    const actual = createHash('sha256').update(reply.body).digest('hex');
    if (actual !== announced.toLowerCase()) {
      return fail(
        context,
        `artifact ${query.name} arrived damaged: sha256 ${actual}, expected ${announced}`,
      );
    }
  }
  if (output === undefined || output === '-') {
    await context.stdoutBytes(reply.body);
    return EXIT_OK;
  }
  try {
    await writeFile(output, reply.body);
  } catch (error) {
    return fail(context, `cannot write ${output}: ${(error as Error).message}`);
  }
  return EXIT_OK;
}

/** Print the artifact names of the scope, one per line. */
export async function listArtifacts(
  context: JobContext,
  query: { readonly scope?: string },
): Promise<number> {
  const body = await requestJson(
    context,
    { method: 'GET', path: '/v1/artifact/list', query },
    artifactListReply,
  );
  if (typeof body === 'number') return body;
  printLines(context, body.names);
  return EXIT_OK;
}

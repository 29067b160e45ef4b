// The archived-output routes through inject() (docs/http-api.md "GET /jobs/{name}/output" and "GET
// /jobs/{name}/runs/{id}/output"): `logs/<job>` records in an in-memory store read back through
// the durable layer's reader, newest first, as text and JSON lines, with the error table (400,
// 404 without a store or for an unknown job or run, 503 while the store opens, 500 for a record
// that does not parse, is too big or that the store cannot read), a run read by id however old,
// hostile ids, and bearer auth.
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { YacronError } from '../common/index.js';
import { makeJob } from '../config/testing.js';
import { listArchives, MAX_SERVED_LINES, readArchive } from '../durable/index.js';
import { MemoryStateStore } from '../state/index.js';
import { createApiFixture, type ApiFixture } from './http-fixture.test.js';
import { NDJSON_TYPE } from './routes-output.js';
import type { ArchiveReader } from './types.js';
import type { JobArchivesWire } from './wire/index.js';

const HEADERS = { 'X-Operator': 'yes' };
const TOKEN = 'out-token';

interface OutputApi extends ApiFixture {
  readonly store: MemoryStateStore;
  /** Whether the reader answers as an open store (false: YC_ERR_STATE_UNAVAILABLE). */
  setOpen(open: boolean): void;
  /** Make every read by id reject with this store error (null: read the store). */
  failReadsWith(error: YacronError | null): void;
}

async function withOutputApi(
  run: (api: OutputApi) => Promise<void>,
  options: { readonly store?: boolean; readonly authToken?: string } = {},
): Promise<void> {
  let open = true;
  let readError: YacronError | null = null;
  const unavailable = (): Promise<never> =>
    Promise.reject(new YacronError('YC_ERR_STATE_UNAVAILABLE', 'the state store is not open yet'));
  const api = await createApiFixture([makeJob({ name: 'backup' }), makeJob({ name: 'quiet' })], {
    web: { headers: HEADERS, ...(options.authToken ? { authToken: options.authToken } : {}) },
    // Asked per request, once `reader` below exists.
    archives: () => (options.store === false ? undefined : reader),
  });
  const store = new MemoryStateStore({ clock: api.clock });
  await store.open();
  const reader: ArchiveReader = {
    listArchives: (name, limit) => (open ? listArchives(store, name, limit) : unavailable()),
    readArchive: (name, id) => {
      if (!open) return unavailable();
      return readError === null ? readArchive(store, name, id) : Promise.reject(readError);
    },
  };
  try {
    await run({
      ...api,
      store,
      setOpen: (value) => {
        open = value;
      },
      failReadsWith: (error) => {
        readError = error;
      },
    });
  } finally {
    await store.close();
    await api.close();
  }
}

function archive(finishedAt: string, lines: readonly object[], extra: object = {}) {
  return {
    finished_at: finishedAt,
    outcome: 'failure',
    exit_code: 2,
    redacted: true,
    dropped_lines: 0,
    lines,
    ...extra,
  };
}

const FIRST = [
  { stream: 'stdout', line: 'starting\n' },
  { stream: 'stderr', line: '\u001b[31mpassword=***REDACTED***\u001b[0m\n' },
  { stream: 'stdout', line: 'done' },
];

void describe('GET /jobs/{name}/output', () => {
  void it('lists the archives newest first with their record ids and line counts', () =>
    withOutputApi(async (api) => {
      const older = await api.store.append(
        'logs/backup',
        archive('2026-01-01T00:00:10+00:00', FIRST),
      );
      const newer = await api.store.append(
        'logs/backup',
        archive('2026-01-01 00:01:00.250000', [{ stream: 'stdout', line: 'ok\n' }], {
          outcome: 'success',
          exit_code: 0,
          redacted: false,
          dropped_lines: 7,
        }),
      );
      await api.store.append('logs/quiet', archive('2026-01-01T00:00:00+00:00', []));
      const response = await api.app.inject('/jobs/backup/output');
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-operator'], 'yes');
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const body: JobArchivesWire = response.json();
      assert.deepEqual(body, {
        name: 'backup',
        archives: [
          {
            id: newer.id,
            finished_at: '2026-01-01T00:01:00.250000+00:00',
            outcome: 'success',
            exit_code: 0,
            redacted: false,
            dropped_lines: 7,
            lines: 1,
          },
          {
            id: older.id,
            finished_at: '2026-01-01T00:00:10+00:00',
            outcome: 'failure',
            exit_code: 2,
            redacted: true,
            dropped_lines: 0,
            lines: 3,
          },
        ],
      });
      const one: JobArchivesWire = (await api.app.inject('/jobs/backup/output?limit=1')).json();
      assert.deepEqual(
        one.archives.map((entry) => entry.id),
        [newer.id],
      );
      const none: JobArchivesWire = (await api.app.inject('/jobs/quiet/output?limit=100')).json();
      assert.equal(none.archives.length, 1);
    }));

  void it('skips a record that is not an archive', () =>
    withOutputApi(async (api) => {
      const good = await api.store.append('logs/backup', archive('2026-01-01T00:00:10Z', FIRST));
      await api.store.append('logs/backup', { finished_at: 'yesterday', lines: 'x' });
      await api.store.append('logs/backup', archive('2026-01-01T00:00:20Z', [], { outcome: 7 }));
      const body: JobArchivesWire = (await api.app.inject('/jobs/backup/output')).json();
      assert.deepEqual(
        body.archives.map((entry) => entry.id),
        [good.id],
      );
    }));

  void it('answers 400 for a bad limit', () =>
    withOutputApi(async (api) => {
      for (const limit of ['0', '101', '-1', 'abc', '1.5', '', '99999']) {
        const response = await api.app.inject(`/jobs/backup/output?limit=${limit}`);
        assert.equal(response.statusCode, 400, limit);
        assert.equal(response.body, 'limit must be an integer from 1 to 100');
      }
      assert.equal((await api.app.inject('/jobs/backup/output?limit=100')).statusCode, 200);
    }));

  void it('answers a bare 404 for an unknown job, and without a state section', async () => {
    await withOutputApi(async (api) => {
      const response = await api.app.inject('/jobs/nope/output');
      assert.equal(response.statusCode, 404);
      assert.equal(response.body, '404: Not Found');
    });
    await withOutputApi(
      async (api) => {
        const response = await api.app.inject('/jobs/backup/output');
        assert.equal(response.statusCode, 404);
        assert.equal(response.body, '404: Not Found');
        const run = await api.app.inject('/jobs/backup/runs/x/output');
        assert.equal(run.statusCode, 404);
      },
      { store: false },
    );
  });

  void it('answers 503 with Retry-After while the store opens', () =>
    withOutputApi(async (api) => {
      api.setOpen(false);
      for (const url of ['/jobs/backup/output', '/jobs/backup/runs/x/output']) {
        const response = await api.app.inject(url);
        assert.equal(response.statusCode, 503, url);
        assert.equal(response.headers['retry-after'], '5');
        assert.match(response.json<{ message: string }>().message, /not open yet/);
      }
    }));

  void it('is behind bearer auth like every route', () =>
    withOutputApi(
      async (api) => {
        const { id } = await api.store.append(
          'logs/backup',
          archive('2026-01-01T00:00:10Z', FIRST),
        );
        for (const url of ['/jobs/backup/output', `/jobs/backup/runs/${id}/output`]) {
          assert.equal((await api.app.inject(url)).statusCode, 401, url);
          const ok = await api.app.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } });
          assert.equal(ok.statusCode, 200, url);
        }
      },
      { authToken: TOKEN },
    ));
});

void describe('GET /jobs/{name}/runs/{id}/output', () => {
  void it('serves the archived lines as text, each with its own line break', () =>
    withOutputApi(async (api) => {
      const { id } = await api.store.append('logs/backup', archive('2026-01-01T00:00:10Z', FIRST));
      const response = await api.app.inject(`/jobs/backup/runs/${id}/output`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(response.headers['x-operator'], 'yes');
      assert.equal(response.body, 'starting\n\u001b[31mpassword=***REDACTED***\u001b[0m\ndone');
      const explicit = await api.app.inject(`/jobs/backup/runs/${id}/output?format=text`);
      assert.equal(explicit.body, response.body);
    }));

  void it('serves a header line and one object per line as JSON lines', () =>
    withOutputApi(async (api) => {
      const { id } = await api.store.append(
        'logs/backup',
        archive('2026-01-01T00:00:10Z', FIRST, { dropped_lines: 3 }),
      );
      const response = await api.app.inject(`/jobs/backup/runs/${id}/output?format=jsonl`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], `${NDJSON_TYPE}; charset=utf-8`);
      assert.ok(response.body.endsWith('\n'));
      const rows = response.body
        .trimEnd()
        .split('\n')
        .map((row): unknown => JSON.parse(row));
      assert.deepEqual(rows, [
        {
          finished_at: '2026-01-01T00:00:10+00:00',
          outcome: 'failure',
          exit_code: 2,
          redacted: true,
          dropped_lines: 3,
        },
        ...FIRST,
      ]);
    }));

  void it('answers 404 for an unknown run or job, 400 for a bad format', () =>
    withOutputApi(async (api) => {
      const { id } = await api.store.append('logs/backup', archive('2026-01-01T00:00:10Z', FIRST));
      const unknown = await api.app.inject('/jobs/backup/runs/0123abc/output');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.body, 'no archived output for run 0123abc');
      // Another job's archive is not this job's.
      assert.equal((await api.app.inject(`/jobs/quiet/runs/${id}/output`)).statusCode, 404);
      const job = await api.app.inject(`/jobs/nope/runs/${id}/output`);
      assert.equal(job.statusCode, 404);
      assert.equal(job.body, '404: Not Found');
      const format = await api.app.inject(`/jobs/backup/runs/${id}/output?format=html`);
      assert.equal(format.statusCode, 400);
      assert.equal(format.body, 'format must be text or jsonl');
    }));

  void it('reads a run by id however many archives came after it', () =>
    withOutputApi(async (api) => {
      const oldest = await api.store.append(
        'logs/backup',
        archive('2026-01-01T00:00:01Z', [{ stream: 'stdout', line: 'the oldest\n' }]),
      );
      for (let n = 0; n < 150; n++) {
        await api.store.append('logs/backup', archive('2026-01-01T00:10:00Z', []));
      }
      const response = await api.app.inject(`/jobs/backup/runs/${oldest.id}/output`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, 'the oldest\n');
      // The listing stays bounded: the newest 100 at most, the oldest not among them.
      const listed: JobArchivesWire = (
        await api.app.inject('/jobs/backup/output?limit=100')
      ).json();
      assert.equal(listed.archives.length, 100);
      assert.ok(!listed.archives.some((entry) => entry.id === oldest.id));
    }));

  void it('answers 404 for an id that names a path, is overlong or holds a NUL, never reading elsewhere', () =>
    withOutputApi(async (api) => {
      const other = await api.store.append('logs/quiet', archive('2026-01-01T00:00:10Z', FIRST));
      await api.store.append('logs/backup', archive('2026-01-01T00:00:10Z', FIRST));
      const ids = [
        `../logs%2Fquiet/${other.id}`,
        `..%2Flogs%252Fquiet%2F${other.id}`,
        `..%5C${other.id}`,
        '%2Fetc%2Fpasswd',
        'x'.repeat(300),
        `${other.id}%00`,
      ];
      for (const id of ids) {
        const response = await api.app.inject(`/jobs/backup/runs/${id}/output`);
        assert.equal(response.statusCode, 404, id);
        assert.ok(!response.body.includes('starting'), id);
      }
      const encoded = await api.app.inject(`/jobs/backup/runs/..%2F${other.id}/output`);
      assert.equal(encoded.body, `no archived output for run ../${other.id}`);
    }));

  void it('answers a clear 500 for a record the store cannot read, naming no path', () =>
    withOutputApi(async (api) => {
      const { id } = await api.store.append('logs/backup', archive('2026-01-01T00:00:10Z', FIRST));
      for (const code of [
        'YC_ERR_STATE_CORRUPT',
        'YC_ERR_STATE_SCHEMA',
        'YC_ERR_STATE_UNSAFE',
      ] as const) {
        api.failReadsWith(
          new YacronError(code, 'Cannot read record /srv/state/x.json: a symbolic link'),
        );
        const response = await api.app.inject(`/jobs/backup/runs/${id}/output`);
        assert.equal(response.statusCode, 500, code);
        const { message } = response.json<{ message: string }>();
        assert.equal(
          message,
          `the archived output of run ${id} cannot be read: the store cannot read its record (the daemon log says why)`,
        );
      }
      api.failReadsWith(new YacronError('YC_ERR_STATE_IO', 'Cannot read record /srv/x: EIO'));
      const io = await api.app.inject(`/jobs/backup/runs/${id}/output`);
      assert.equal(io.statusCode, 503, 'an I/O error may pass');
      assert.ok(!io.body.includes('/srv'));
      api.failReadsWith(null);
      assert.equal((await api.app.inject(`/jobs/backup/runs/${id}/output`)).statusCode, 200);
    }));

  void it('refuses a malformed or oversize record with a clear 500, never a crash', () =>
    withOutputApi(async (api) => {
      const badLine = await api.store.append(
        'logs/backup',
        archive('2026-01-01T00:00:10Z', [{ stream: 'stdout', line: 'a\n' }, { stream: 'x' }]),
      );
      const badHeader = await api.store.append('logs/backup', { lines: [], outcome: 'success' });
      const big = await api.store.append(
        'logs/backup',
        archive(
          '2026-01-01T00:00:10Z',
          Array.from({ length: MAX_SERVED_LINES + 1 }, () => ({ stream: 'stdout', line: '' })),
        ),
      );
      const cases: [string, RegExp][] = [
        [badLine.id, /cannot be read: line 1 is not \{stream, line\}/],
        [badHeader.id, /cannot be read: no readable finished_at/],
        [big.id, /holds 100001 lines, more than the 100000 served/],
      ];
      for (const [id, message] of cases) {
        const response = await api.app.inject(`/jobs/backup/runs/${id}/output?format=jsonl`);
        assert.equal(response.statusCode, 500, id);
        assert.match(response.json<{ message: string }>().message, message);
      }
      // The daemon still serves.
      assert.equal((await api.app.inject('/jobs/backup/output')).statusCode, 200);
    }));
});

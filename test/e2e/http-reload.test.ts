// E2E: the web section is reconciled on reload (docs/http-api.md "Listen URLs"): a changed block
// restarts the server, a token that resolves empty keeps the API down while the jobs still reload,
// and a fixed block brings it back.
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { test } from 'node:test';
import { startDaemon, useTempDir, writeConfig } from './harness.js';

async function getStatus(address: string, path: string): Promise<number> {
  const url = new URL(address);
  const req = request({ host: url.hostname, port: Number(url.port), path, method: 'GET' });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  response.resume();
  return response.statusCode ?? 0;
}

const job = (name: string): string => `  - name: ${name}
    command: "true"
    schedule: "0 0 1 1 *"
`;

test(
  'web reconciles on reload; a web error does not block the job reload',
  { timeout: 60_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const web = (extra = ''): string => `web:\n  listen:\n    - http://127.0.0.1:0\n${extra}`;
    const config = await writeConfig(dir, `jobs:\n${job('a')}${web()}`);
    const daemon = startDaemon(t, ['-c', config, '--reload-interval', '1'], {
      env: { ...process.env, YACRON2_E2E_UNSET_TOKEN: '' },
    });
    const started = /^web: started listening on (http:\/\/\S+)$/;
    const first = started.exec((await daemon.waitForLog(started)).msg)![1]!;
    assert.equal(await getStatus(first, '/version'), 200);

    // A changed block (a header added) restarts the server. Waiters are registered before the
    // write: "stopped" and "started" are logged milliseconds apart.
    const stopped = daemon.waitForNewLog(/^web: stopped listening on /);
    const restarted = daemon.waitForNewLog(started);
    await writeConfig(dir, `jobs:\n${job('a')}${web('  headers:\n    X-A: "1"\n')}`);
    await stopped;
    const second = started.exec((await restarted).msg)![1]!;
    assert.equal(await getStatus(second, '/version'), 200);

    // An empty token: logged, web stays down, the new job set is applied anyway.
    const webError = daemon.waitForNewLog(
      /^Error in the web configuration, so not starting the web API: web\.authToken is configured but resolved to an empty token; /,
    );
    await writeConfig(
      dir,
      `jobs:\n${job('a')}${job('b')}${web('  authToken:\n    fromEnvVar: YACRON2_E2E_UNSET_TOKEN\n')}`,
    );
    await webError;
    await daemon.waitForLog(/^Job set id: v1:[0-9a-f]{64} \(2 jobs\)$/);
    await assert.rejects(getStatus(second, '/version'));

    // Fixed: the API comes back, with auth on.
    const back = daemon.waitForNewLog(started);
    await writeConfig(
      dir,
      `jobs:\n${job('a')}${job('b')}${web('  authToken:\n    value: fixed\n')}`,
    );
    const third = started.exec((await back).msg)![1]!;
    assert.equal(await getStatus(third, '/version'), 401);
    assert.equal(await daemon.stop(), 0);
  },
);

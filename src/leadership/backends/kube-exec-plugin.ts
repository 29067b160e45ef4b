// Runs a kubeconfig's exec credential plugin and keeps its answer (docs/clustering.md
// "Kubernetes"): the command with its args, the daemon's environment plus the block's env and
// KUBERNETES_EXEC_INFO, no stdin; at most EXEC_TIMEOUT_MS (then SIGKILL) and EXEC_OUTPUT_LIMIT
// bytes of stdout. The credential is kept until its expirationTimestamp (EXPIRY_MARGIN_MS early,
// so a request never leaves with a token about to lapse) or until the apiserver refuses it (401),
// and one run serves every caller that asks while it runs. The reading of the block and of the
// answer is kube-exec-credential.ts.
// Must not: log or throw the plugin's stdout (it holds the token), keep more than
// STDERR_KEPT_CHARS of its stderr, or leave the plugin running past the bound.
import { spawn } from 'node:child_process';
import { YacronError, describeError, type Clock } from '../../common/index.js';
import {
  execInfo,
  readExecCredential,
  type ExecCredential,
  type ExecPluginSpec,
} from './kube-exec-credential.js';

export const EXEC_TIMEOUT_MS = 30_000;
export const EXEC_OUTPUT_LIMIT = 1024 * 1024;
export const STDERR_KEPT_CHARS = 2048;
export const EXPIRY_MARGIN_MS = 10_000;

export interface ExecPluginDeps {
  readonly clock: Clock;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the failure messages say the block is (`the kubeconfig <file>, user <name>`). */
  readonly where: string;
  /** A seam for tests: the bound on one run. */
  readonly timeoutMs?: number;
}

const fail = (message: string): YacronError =>
  new YacronError('YC_ERR_CLUSTER_CREDENTIALS', message);

/** The credential of one exec block, run again once it expires. */
export class ExecCredentialSource {
  readonly #spec: ExecPluginSpec;
  readonly #deps: ExecPluginDeps;
  #kept: ExecCredential | null = null;
  #running: Promise<ExecCredential> | null = null;

  constructor(spec: ExecPluginSpec, deps: ExecPluginDeps) {
    this.#spec = spec;
    this.#deps = deps;
  }

  /** Drops the kept credential (the apiserver refused it): the next call runs the plugin. */
  forget(): void {
    this.#kept = null;
  }

  /** The kept credential while it is fresh, else the answer of a new run (shared). */
  credential(): Promise<ExecCredential> {
    const kept = this.#kept;
    if (
      kept !== null &&
      (kept.expiresAtMs === null || this.#deps.clock.now() < kept.expiresAtMs - EXPIRY_MARGIN_MS)
    ) {
      return Promise.resolve(kept);
    }
    if (this.#running === null) {
      this.#running = runExecPlugin(this.#spec, this.#deps).then(
        (credential) => {
          this.#kept = credential;
          this.#running = null;
          return credential;
        },
        (error: unknown) => {
          this.#running = null;
          throw error;
        },
      );
    }
    return this.#running;
  }
}

/** One run of the plugin: its credential, or a YacronError naming the command and the cause. */
export function runExecPlugin(spec: ExecPluginSpec, deps: ExecPluginDeps): Promise<ExecCredential> {
  const what = `the exec credential plugin '${spec.command}' of ${deps.where}`;
  const env: Record<string, string | undefined> = { ...deps.env };
  for (const { name, value } of spec.env) env[name] = value;
  env.KUBERNETES_EXEC_INFO = execInfo(spec);
  return new Promise((resolve, reject) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let cut: string | null = null;
    const child = spawn(spec.command, spec.args, {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = deps.clock.setTimer(() => {
      cut = `did not finish within ${(deps.timeoutMs ?? EXEC_TIMEOUT_MS) / 1000} s`;
      child.kill('SIGKILL');
    }, deps.timeoutMs ?? EXEC_TIMEOUT_MS);
    const finish = (outcome: () => ExecCredential): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      try {
        resolve(outcome());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > EXEC_OUTPUT_LIMIT) {
        cut ??= `printed more than ${EXEC_OUTPUT_LIMIT} bytes`;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (stderr.length < STDERR_KEPT_CHARS) stderr = (stderr + text).slice(0, STDERR_KEPT_CHARS);
    });
    const said = (): string => {
      const line = stderr.trim().split('\n').slice(-3).join(' | ');
      return line === '' ? '' : `; it said: ${line}`;
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(() => {
        const hint =
          error.code === 'ENOENT' && spec.installHint !== null ? ` (${spec.installHint})` : '';
        throw fail(`Cannot run ${what}: ${describeError(error)}${hint}`);
      });
    });
    child.on('close', (code, signal) => {
      finish(() => {
        if (cut !== null) throw fail(`Cannot use ${what}: it ${cut}${said()}`);
        if (code !== 0) {
          const how = signal === null ? `exited with ${code}` : `was killed by ${signal}`;
          throw fail(`Cannot use ${what}: it ${how}${said()}`);
        }
        const reading = readExecCredential(Buffer.concat(chunks).toString('utf8'), spec);
        if (reading.kind === 'invalid') throw fail(`Cannot use ${what}: ${reading.problem}`);
        return reading.credential;
      });
    });
  });
}

// `yacron2 logs JOB [--run ID | --last N] [--follow]` (docs/cli.md "yacron2 logs"): a job's
// archived run output read through the daemon's control API (found by flags, the environment, or
// the daemon's configuration with `-c`), and its live output followed over the logs stream until
// the run ends. Messages go to stderr as `yacron2 logs: ...`, the job's lines and the run headers
// to stdout.
// Must not: print the token (messages name the URL, the job and the run, never the token), or
// hold more than one line of an answer (control-client/control-api.ts bounds every read).
import { readFileSync } from 'node:fs';
import {
  createDeferred,
  describeError,
  systemClock,
  type Clock,
  type Deferred,
} from '../../common/index.js';
import type { ResolvedWeb } from '../../config/index.js';
import { resolveTarget, type TargetFlags } from '../control-client/api-target.js';
import { configTarget, type ConfigTarget } from '../control-client/config-target.js';
import {
  ControlApi,
  segment,
  type BodyReply,
  type StreamEnd,
} from '../control-client/control-api.js';
import { SseParser, type SseEvent } from '../../common/index.js';
import {
  decodeArchiveHeader,
  decodeArchiveList,
  decodeErrorBody,
  decodeJobRunning,
  decodeJson,
  decodeOutputLine,
  decodeRunFinished,
  decodeRunStarted,
  decodeStreamEnd,
  type ArchiveList,
  type ArchiveSummary,
  type RunFinishedData,
  type StreamEndData,
} from '../control-client/wire.js';
import { EXIT_FAILURE, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import type { CommandIo } from '../io.js';
import { parseLogsArgs, type LogsFlags, type LogsRequest } from './logs-args.js';
import { archiveHeaderLine, outputLine, recordHeaderLine } from './logs-format.js';

const PREFIX = 'yacron2 logs';
/** From sending a request to its answer's headers. */
const HEADER_TIMEOUT_MS = 30_000;
/** Between two chunks of an answer; a stream gets a `: ping` every 15 s (docs/http-api.md "Streams (server-sent events)"). */
const IDLE_TIMEOUT_MS = 60_000;
/** A JSON body (a listing of at most 100 archives, a job object). */
const MAX_JSON_BYTES = 4 * 1024 * 1024;
/**
 * One line of an answer: an archived line is at most 64 KiB of text, which JSON escaping can
 * grow up to six times.
 */
const MAX_LINE_BYTES = 1024 * 1024;
/** After a followed run's `end`: how long its `run:finished` and its archive are waited for. */
const SETTLE_WAIT_MS = 10_000;
/** The same for a job with no archive yet: it may archive nothing. */
const FIRST_ARCHIVE_WAIT_MS = 2_000;
/** How many of the newest archives a look for the followed run's archive reads. */
const ARCHIVE_LOOKUP = 5;
/** The first pause between two looks for the followed run's archive (doubling, at most 1 s). */
const ARCHIVE_POLL_MS = 100;

export interface LogsFlagsWithTarget extends LogsFlags, TargetFlags {
  /** `-c FILE|DIR`: the daemon's configuration, for what no flag or variable gives. */
  readonly config?: string;
}

export interface LogsDeps {
  readonly io: CommandIo;
  readonly clock: Clock;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string;
  /**
   * The `web` section of the configuration at `path`, resolved as the daemon resolves it (null:
   * none); rejects with YC_ERR_CONFIG_INVALID for a configuration the daemon would refuse.
   */
  readonly readWebConfig: (path: string) => Promise<ResolvedWeb | null>;
}

/** The real process: its environment, clock and files. */
export function processLogsDeps(io: CommandIo): LogsDeps {
  return {
    io,
    clock: systemClock,
    env: process.env,
    readFile: (path) => readFileSync(path, 'utf8'),
    readWebConfig: async (path) => {
      // Loaded only for `-c`: `yacron2 logs` without it never parses YAML.
      const { loadConfig } = await import('../../config/index.js');
      const config = await loadConfig(path, { env: process.env, cwd: process.cwd() });
      return config.web ?? null;
    },
  };
}

/** Check the flags, then print or follow; the exit code. */
export async function runLogsCli(
  job: string,
  flags: LogsFlagsWithTarget,
  deps: LogsDeps,
): Promise<number> {
  const args = parseLogsArgs(job, flags);
  if (args.kind === 'usage') return fail(deps.io, args.message, EXIT_USAGE);
  let config: ConfigTarget | undefined;
  if (flags.config !== undefined) {
    if (flags.config === '') return fail(deps.io, '-c must name a file or directory', EXIT_USAGE);
    try {
      config = configTarget(flags.config, await deps.readWebConfig(flags.config));
    } catch (error) {
      const message = `cannot load the configuration at ${flags.config}: ${describeError(error)}`;
      return fail(deps.io, message, EXIT_FAILURE);
    }
  }
  const target = resolveTarget(flags, deps.env, deps.readFile, config);
  if (target.kind === 'usage') return fail(deps.io, target.message, EXIT_USAGE);
  if (target.kind === 'error') return fail(deps.io, target.message, EXIT_FAILURE);
  return new LogsCommand(args.request, new ControlApi(target.target, deps.clock), deps).run();
}

/** A failure that ends the command: its message and exit code. */
class Stop extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = EXIT_FAILURE) {
    super(message);
    this.exitCode = exitCode;
  }
}

class LogsCommand {
  readonly #request: LogsRequest;
  readonly #api: ControlApi;
  readonly #io: CommandIo;
  readonly #clock: Clock;

  constructor(request: LogsRequest, api: ControlApi, deps: LogsDeps) {
    this.#request = request;
    this.#api = api;
    this.#io = deps.io;
    this.#clock = deps.clock;
  }

  async run(): Promise<number> {
    try {
      return await this.#run();
    } catch (error) {
      if (error instanceof Stop) return fail(this.#io, error.message, error.exitCode);
      throw error;
    }
  }

  async #run(): Promise<number> {
    const { archives, follow } = this.#request;
    let known: readonly string[] | null = null;
    switch (archives.kind) {
      case 'run':
        await this.#printArchive(archives.id, 'asked');
        return EXIT_OK;
      case 'last':
        known = await this.#printLast(archives.count);
        break;
      case 'none':
        break;
    }
    if (!follow) return EXIT_OK;
    return this.#follow(known);
  }

  /** Print the `count` newest archives, oldest first; the ids of the listing. */
  async #printLast(count: number): Promise<readonly string[]> {
    const list = await this.#listArchives(count);
    if (list.archives.length === 0) {
      this.#io.stderr(
        `${PREFIX}: ${this.#job} has no archived output (archiveOutput: true keeps it)\n`,
      );
      return [];
    }
    for (const archive of [...list.archives].reverse()) {
      await this.#printArchive(archive.id, 'listed');
    }
    return list.archives.map((archive) => archive.id);
  }

  async #listArchives(limit: number): Promise<ArchiveList> {
    const path = `/jobs/${segment(this.#job)}/output?limit=${limit}`;
    const reply = await this.#tryGet(path);
    if (reply.kind === 'status' && reply.status === 404) throw await this.#noArchives();
    if (reply.kind !== 'ok') throw this.#failure(reply, path);
    const list = decodeJson(reply.body, decodeArchiveList);
    if (list === null) throw this.#notUnderstood(`GET /jobs/${this.#job}/output`);
    return list;
  }

  /**
   * Print one archive: its header line, then its lines. An archive `listed` a moment ago may have
   * been pruned since: then a note, not a failure.
   */
  async #printArchive(id: string, how: 'asked' | 'listed'): Promise<void> {
    const path = `/jobs/${segment(this.#job)}/runs/${segment(id)}/output?format=jsonl`;
    // A holder, not `let`s: the line callback sets it.
    const seen: { header: boolean; malformed: boolean } = { header: false, malformed: false };
    const end = await this.#api.streamLines(
      {
        path,
        accept: 'application/x-ndjson',
        headerTimeoutMs: HEADER_TIMEOUT_MS,
        idleTimeoutMs: IDLE_TIMEOUT_MS,
        maxLineBytes: MAX_LINE_BYTES,
      },
      (text) => {
        if (text === '') return 'continue';
        if (!seen.header) {
          const decoded = decodeJson(text, decodeArchiveHeader);
          if (decoded === null) {
            seen.malformed = true;
            return 'stop';
          }
          seen.header = true;
          this.#io.stdout(archiveHeaderLine(this.#job, id, decoded));
          return 'continue';
        }
        const line = decodeJson(text, decodeOutputLine);
        if (line === null) {
          seen.malformed = true;
          return 'stop';
        }
        this.#io.stdout(outputLine(line.line));
        return 'continue';
      },
    );
    if (seen.malformed) throw this.#notUnderstood(`GET /jobs/${this.#job}/runs/${id}/output`);
    if (end.kind === 'status' && end.status === 404) {
      // docs/http-api.md "GET /jobs/{name}/runs/{id}/output": this body for an unknown run, the
      // bare one for an unknown job or a daemon without a store.
      if (!end.body.startsWith('no archived output for run')) throw await this.#noArchives();
      if (how === 'listed') {
        this.#io.stderr(`${PREFIX}: run ${id} of ${this.#job} was pruned meanwhile\n`);
        return;
      }
      throw new Stop(`${this.#job} has no archived run ${id}`, EXIT_NOT_FOUND);
    }
    if (end.kind !== 'ended') throw this.#failure(end, path);
    if (!seen.header) throw this.#notUnderstood(`GET /jobs/${this.#job}/runs/${id}/output`);
  }

  /**
   * Follow the current run's output, or the next run's when none is running; after its `end`,
   * print its archive's header (or, for a job that archives nothing, its run record's).
   */
  async #follow(listed: readonly string[] | null): Promise<number> {
    const known = listed ?? (await this.#newestArchiveIds());
    const events = new RunEvents(this.#job);
    const stopEvents = new AbortController();
    const opened = createDeferred();
    const eventsDone = this.#api
      .streamLines(
        {
          path: `/events?job=${segment(this.#job)}`,
          accept: 'text/event-stream',
          headerTimeoutMs: HEADER_TIMEOUT_MS,
          idleTimeoutMs: IDLE_TIMEOUT_MS,
          maxLineBytes: MAX_LINE_BYTES,
          signal: stopEvents.signal,
          onOpen: () => opened.resolve(),
        },
        (line) => events.line(line),
      )
      .then((end) => {
        events.close(end);
        opened.resolve();
        return end;
      });
    try {
      await opened.promise;
      const closed = events.closed;
      if (closed !== null) {
        throw this.#failure(
          closed.kind === 'ended'
            ? { kind: 'unreachable', reason: 'the event stream ended' }
            : closed,
          '/events',
        );
      }
      const startsBefore = events.startedCount;
      const finishedBefore = events.finishedCount;
      // The events stream is open before the job is looked at: a run starting in between is seen.
      if (!(await this.#jobRunning())) {
        this.#io.stderr(`${PREFIX}: ${this.#job} is not running; waiting for its next run\n`);
        const started = await events.nextStart(startsBefore);
        if (started.kind === 'closed') throw this.#failure(started.end, '/events');
      }
      await this.#streamLiveOutput();
      const finished = await events.finishedAfter(finishedBefore, this.#clock, SETTLE_WAIT_MS);
      // A job that archived before is waited for longer than one that has no archive yet (it
      // may archive nothing).
      const archive = await this.#archiveOf(
        finished,
        known,
        known.length > 0 ? SETTLE_WAIT_MS : FIRST_ARCHIVE_WAIT_MS,
      );
      if (archive !== null) {
        this.#io.stdout(archiveHeaderLine(this.#job, archive.id, archive));
      } else if (finished !== null) {
        this.#io.stdout(recordHeaderLine(this.#job, finished));
      } else {
        this.#io.stdout(`== ${this.#job} run ended ==\n`);
      }
      return EXIT_OK;
    } finally {
      stopEvents.abort();
      await eventsDone;
    }
  }

  /** Print the logs stream's lines until its `end`. */
  async #streamLiveOutput(): Promise<void> {
    const path = `/jobs/${segment(this.#job)}/logs`;
    // A holder, not `let`s: the line callback below sets it.
    const seen: { ended: StreamEndData | null; malformed: boolean } = {
      ended: null,
      malformed: false,
    };
    const onEvent = (event: SseEvent): void => {
      if (event.event === 'line') {
        const line = decodeJson(event.data, decodeOutputLine);
        if (line === null) seen.malformed = true;
        else this.#io.stdout(outputLine(line.line));
      } else if (event.event === 'end') {
        seen.ended = decodeJson(event.data, decodeStreamEnd) ?? { reason: null };
      }
    };
    const parser = new SseParser(MAX_LINE_BYTES);
    const end = await this.#api.streamLines(
      {
        path,
        accept: 'text/event-stream',
        headerTimeoutMs: HEADER_TIMEOUT_MS,
        idleTimeoutMs: IDLE_TIMEOUT_MS,
        maxLineBytes: MAX_LINE_BYTES,
      },
      (line) => {
        const step = parser.line(line);
        if (step.kind === 'overflow') seen.malformed = true;
        else if (step.kind === 'event') onEvent(step.event);
        return seen.ended !== null || seen.malformed ? 'stop' : 'continue';
      },
    );
    if (seen.malformed) throw this.#notUnderstood(`GET ${path}`);
    const { ended } = seen;
    if (ended === null) {
      if (end.kind === 'ended') {
        throw new Stop(
          `the logs stream of ${this.#job} at ${this.#api.target.url} ended before the run did (the daemon stopped or restarted its API)`,
        );
      }
      throw this.#failure(end, path);
    }
    const { reason } = ended;
    if (reason === 'slow-consumer') {
      throw new Stop(
        `the daemon at ${this.#api.target.url} cut the logs stream off: it was read too slowly`,
      );
    }
  }

  /** The newest archive ids (to tell the followed run's archive from older ones); [] without. */
  async #newestArchiveIds(): Promise<readonly string[]> {
    const reply = await this.#tryGet(`/jobs/${segment(this.#job)}/output?limit=1`);
    if (reply.kind !== 'ok') return [];
    const list = decodeJson(reply.body, decodeArchiveList);
    return list === null ? [] : list.archives.map((archive) => archive.id);
  }

  /**
   * The followed run's archive: the one whose `finished_at` is the run's (docs/http-api.md
   * "GET /jobs/{name}/output"), else the newest not in `known`, looked for until `waitMs`
   * passed; null when none turned up or the daemon keeps no archives.
   */
  async #archiveOf(
    finished: RunFinishedData | null,
    known: readonly string[],
    waitMs: number,
  ): Promise<ArchiveSummary | null> {
    const deadline = this.#clock.monotonic() + waitMs;
    const finishedAt = finished?.finished_at ?? null;
    let pauseMs = ARCHIVE_POLL_MS;
    for (;;) {
      const reply = await this.#tryGet(
        `/jobs/${segment(this.#job)}/output?limit=${ARCHIVE_LOOKUP}`,
      );
      if (reply.kind !== 'ok') return null;
      const archives = decodeJson(reply.body, decodeArchiveList)?.archives ?? [];
      const found =
        archives.find((archive) => archive.finished_at === finishedAt) ??
        archives.find((archive) => !known.includes(archive.id));
      if (found !== undefined) return found;
      if (this.#clock.monotonic() + pauseMs > deadline) return null;
      await this.#clock.sleep(pauseMs);
      pauseMs = Math.min(1000, pauseMs * 2);
    }
  }

  /**
   * Why an archive route answered its bare 404: the job is unknown (then `#jobRunning` stops
   * with that), or the daemon has no `state` section and so no archives.
   */
  async #noArchives(): Promise<Stop> {
    await this.#jobRunning();
    return new Stop(
      `the daemon at ${this.#api.target.url} keeps no archived output (it has no state section)`,
    );
  }

  /** Whether the job runs now (`GET /jobs/{name}`); a 404 stops with "no job". */
  async #jobRunning(): Promise<boolean> {
    const body = await this.#getJson(`/jobs/${segment(this.#job)}`);
    const job = decodeJson(body, decodeJobRunning);
    if (job === null) throw this.#notUnderstood(`GET /jobs/${this.#job}`);
    return job.running;
  }

  async #tryGet(path: string): Promise<BodyReply> {
    return this.#api.getBody({
      path,
      accept: 'application/json',
      headerTimeoutMs: HEADER_TIMEOUT_MS,
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      maxBytes: MAX_JSON_BYTES,
    });
  }

  async #getJson(path: string): Promise<string> {
    const reply = await this.#tryGet(path);
    if (reply.kind === 'ok') return reply.body;
    throw this.#failure(reply, path);
  }

  /** The message of a request that got no usable answer. */
  #failure(end: Exclude<StreamEnd, { readonly kind: 'ended' }> | BodyReply, path: string): Stop {
    const url = this.#api.target.url;
    switch (end.kind) {
      case 'unreachable':
        return new Stop(`cannot reach the yacron2 daemon at ${url}: ${end.reason}`);
      case 'idle':
        return new Stop(
          `the daemon at ${url} did not answer GET ${path} within ${end.ms / 1000} s`,
        );
      case 'too-large':
        return new Stop(`the daemon's answer to GET ${path} is larger than this command reads`);
      case 'stopped':
        return new Stop(`GET ${path} was interrupted`);
      case 'ok':
        return this.#notUnderstood(`GET ${path}`);
      case 'status':
        return this.#statusFailure(end.status, end.body, path);
    }
  }

  #statusFailure(status: number, body: string, path: string): Stop {
    const url = this.#api.target.url;
    const source = this.#api.target.tokenSource;
    switch (status) {
      case 401:
        return new Stop(
          source === null
            ? `the daemon at ${url} wants a token (401): pass --token-file FILE or -c CONFIG, or set YACRON2_API_TOKEN`
            : `the daemon at ${url} refused the token from ${source} (401)`,
        );
      case 404:
        return new Stop(`no job named ${this.#job} at ${url}`, EXIT_NOT_FOUND);
      case 503:
        return new Stop(
          `the daemon at ${url} cannot answer GET ${path} yet (503: ${oneLine(body)}); try again shortly`,
        );
      default:
        return new Stop(
          `the daemon at ${url} answered GET ${path} with HTTP ${status}: ${oneLine(body)}`,
        );
    }
  }

  #notUnderstood(what: string): Stop {
    return new Stop(
      `the answer to ${what} from ${this.#api.target.url} is not what this yacron2 reads (another version?)`,
    );
  }

  get #job(): string {
    return this.#request.job;
  }
}

/**
 * The `run:started` and `run:finished` events of one job from `GET /events?job=NAME`, kept as
 * counts and the newest finish (bounded), with waiters for the next of each.
 */
class RunEvents {
  readonly #job: string;
  readonly #parser: SseParser;
  #started = 0;
  #finished = 0;
  #lastFinished: RunFinishedData | null = null;
  #closed: StreamEnd | null = null;
  #overflow = false;
  #changed: Deferred<void> = createDeferred();

  constructor(job: string) {
    this.#job = job;
    this.#parser = new SseParser(MAX_LINE_BYTES);
  }

  get closed(): StreamEnd | null {
    return this.#closed;
  }

  get startedCount(): number {
    return this.#started;
  }

  get finishedCount(): number {
    return this.#finished;
  }

  line(text: string): 'stop' | 'continue' {
    const step = this.#parser.line(text);
    if (step.kind === 'overflow') {
      this.#overflow = true;
      return 'stop';
    }
    if (step.kind === 'event') this.#event(step.event);
    return 'continue';
  }

  close(end: StreamEnd): void {
    this.#closed = this.#overflow ? { kind: 'too-large' } : end;
    this.#notify();
  }

  /** Resolves once more than `count` `run:started` were seen, or when the stream closed. */
  async nextStart(
    count: number,
  ): Promise<
    | { readonly kind: 'started' }
    | { readonly kind: 'closed'; readonly end: Exclude<StreamEnd, { readonly kind: 'ended' }> }
  > {
    for (;;) {
      if (this.#started > count) return { kind: 'started' };
      const closed = this.#closed;
      if (closed !== null) {
        return {
          kind: 'closed',
          end:
            closed.kind === 'ended'
              ? { kind: 'unreachable', reason: 'the event stream ended' }
              : closed,
        };
      }
      await this.#changed.promise;
    }
  }

  /** The newest `run:finished` once more than `count` were seen; null after `timeoutMs` or a close. */
  async finishedAfter(
    count: number,
    clock: Clock,
    timeoutMs: number,
  ): Promise<RunFinishedData | null> {
    let timedOut = false;
    const timer = clock.setTimer(() => {
      timedOut = true;
      this.#notify();
    }, timeoutMs);
    try {
      for (;;) {
        if (this.#finished > count) return this.#lastFinished;
        if (timedOut || this.#closed !== null) return null;
        await this.#changed.promise;
      }
    } finally {
      timer.cancel();
    }
  }

  #event(event: SseEvent): void {
    if (event.event === 'run:started') {
      const started = decodeJson(event.data, decodeRunStarted);
      if (started?.job !== this.#job) return;
      this.#started += 1;
    } else if (event.event === 'run:finished') {
      const finished = decodeJson(event.data, decodeRunFinished);
      if (finished?.job !== this.#job) return;
      this.#finished += 1;
      this.#lastFinished = finished;
    } else {
      return;
    }
    this.#notify();
  }

  #notify(): void {
    const changed = this.#changed;
    this.#changed = createDeferred();
    changed.resolve();
  }
}

function fail(io: CommandIo, message: string, exitCode: number): number {
  io.stderr(`${PREFIX}: ${message}\n`);
  return exitCode;
}

/**
 * An error body for a message: a JSON body's `message`, else the text; on one line, at most 200
 * characters.
 */
function oneLine(body: string): string {
  const text = (decodeJson(body, decodeErrorBody)?.message ?? body).replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

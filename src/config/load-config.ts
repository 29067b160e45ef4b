// The config load: a file or a directory, includes, defaults layers, crontab files
// (docs/configuration.md "Where the configuration comes from"), then per-job resolution and the
// cross-checks on the assembled config. Every problem is collected and thrown as one
// YC_ERR_CONFIG_INVALID; nothing else escapes.
import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { deepFreeze } from '../common/index.js';
import { assertTimezone, localTimezone, parseSchedule, type Schedule } from '../schedule/index.js';
import type { SingletonSection } from './config-schema.js';
import type { ResolvedCluster } from './cluster-schema.js';
import { resolveClusterSection } from './cluster-section.js';
import { resolveDags, type DagEntry } from './dag-section.js';
import { computeJobSetId } from './fingerprint.js';
import { sectionRef, type FileUnit, type SectionRef, type SectionRefs } from './file-unit.js';
import { loadIdentityDatabase, type IdentityDatabase } from './identity.js';
import { IssueCollector, LocTable, childPath, issueAt, type Loc } from './issues.js';
import type { TypedDefaults } from './job-schema.js';
import { mergeLayer } from './merge.js';
import {
  resolveJob,
  type EnvFileRead,
  type JobDraft,
  type ResolveServices,
} from './resolve-job.js';
import {
  describeIoError,
  directoryEntryKind,
  displayPath,
  kindByName,
  type FileKind,
} from './source-files.js';
import { SourceReader, canonicalPath } from './source-reader.js';
import type { TypedJob } from './job-schema.js';
import type { ResolvedConfig, ResolvedJob, ResolvedWeb } from './types.js';
import { resolveStateSection, type ResolvedState } from './state-section.js';
import { resolveWebSection } from './web-section.js';

export interface LoadConfigOptions {
  /** The daemon environment: `web.authToken.fromEnvVar` is read from it (job secrets resolve lazily). */
  readonly env?: NodeJS.ProcessEnv;
  /** Working directory: relative config paths and every `env_file` resolve against it. */
  readonly cwd?: string;
  /** Test seams: the platform (Windows rules), effective uid, passwd/group files. */
  readonly platform?: NodeJS.Platform;
  readonly euid?: number | null;
  readonly passwdPath?: string;
  readonly groupPath?: string;
  /** Diagnostics seam: called with each job's canonical identity text (what its digest hashes). */
  readonly onJobIdentity?: (jobName: string, canonicalText: string) => void;
}

/** Load, validate and resolve a config file or directory; throws YC_ERR_CONFIG_INVALID. */
export async function loadConfig(
  configPath: string,
  options: LoadConfigOptions = {},
): Promise<ResolvedConfig> {
  return new ConfigLoad(options).run(configPath);
}

interface Assembled {
  readonly layer: TypedDefaults | null;
  readonly drafts: readonly JobDraft[];
  readonly dags: readonly DagEntry[];
  readonly sections: SectionRefs;
}

const NO_SECTIONS: SectionRefs = new Map();

/** The state of one load: caches, issues and the files read. Never shared between loads. */
class ConfigLoad implements ResolveServices {
  readonly locs = new LocTable();
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  readonly euid: number | null;
  readonly #passwdPath: string;
  readonly #groupPath: string;
  readonly #issues = new IssueCollector();
  readonly #reader: SourceReader;
  readonly #schedules = new Map<string, Schedule>();
  readonly #seenJobs = new Set<TypedJob>();
  readonly #jobs: { readonly job: ResolvedJob; readonly draft: JobDraft }[] = [];
  readonly #sections = new Map<SingletonSection, SectionRef>();
  readonly #dagEntries: DagEntry[] = [];
  #state: ResolvedState | null = null;
  readonly #env: NodeJS.ProcessEnv;
  readonly onJobIdentity: ((jobName: string, canonicalText: string) => void) | undefined;
  #identity: Promise<IdentityDatabase> | undefined;
  #localZone: string | undefined;

  constructor(options: LoadConfigOptions) {
    this.cwd = path.resolve(options.cwd ?? process.cwd());
    this.platform = options.platform ?? process.platform;
    this.euid =
      options.euid !== undefined
        ? options.euid
        : typeof process.geteuid === 'function'
          ? process.geteuid()
          : null;
    this.#passwdPath = options.passwdPath ?? '/etc/passwd';
    this.#groupPath = options.groupPath ?? '/etc/group';
    this.#env = options.env ?? process.env;
    this.onJobIdentity = options.onJobIdentity;
    this.#reader = new SourceReader({
      locs: this.locs,
      displayPath: (absolute) => this.displayPath(absolute),
    });
  }

  async run(configPath: string): Promise<ResolvedConfig> {
    const absolute = path.resolve(this.cwd, configPath);
    let isDirectory = false;
    try {
      isDirectory = (await stat(absolute)).isDirectory();
    } catch (error) {
      this.#issues.report({
        file: this.displayPath(absolute),
        path: '',
        line: 0,
        message: `cannot read the configuration: ${describeIoError(error)}`,
      });
      throw this.#issues.toError();
    }
    if (isDirectory) {
      await this.#loadDirectory(absolute);
    } else {
      await this.#loadTopFile(absolute, kindByName(absolute));
    }
    this.#issues.startGroup();
    const jobNames = this.#crossCheck();
    const dags = await resolveDags(this.#dagEntries, this, {
      jobNames,
      jobApiAvailable: this.#state !== null && this.#state.jobApi.enabled,
    });
    for (const issue of dags.issues) this.#issues.report(issue);
    const cluster = await this.#resolveCluster();
    if (this.#issues.count > 0) throw this.#issues.toError();

    const jobs = this.#jobs.map((entry) => entry.job);
    const logging = sectionRef(this.#sections, 'logging');
    const web = await this.#resolveWeb();
    return Object.freeze({
      jobs: Object.freeze(jobs),
      // DAGs never count in the job-set id (docs/dags.md "Configuration").
      jobSetId: computeJobSetId(jobs),
      dags: Object.freeze([...dags.dags]),
      logging: logging === undefined ? null : deepFreeze({ ...logging.value }),
      state: this.#state,
      web,
      cluster: cluster === null ? null : deepFreeze(cluster),
      sourceFiles: Object.freeze([...this.#reader.sourceFiles]),
      configPath: absolute,
    });
  }

  /** The `cluster` section resolved (its password file read, its problems reported at their keys). */
  async #resolveCluster(): Promise<ResolvedCluster | null> {
    const ref = sectionRef(this.#sections, 'cluster');
    if (ref === undefined) return null;
    const typed = ref.value;
    const passwordFile = typed.fields.etcd?.password?.fromFile;
    if (passwordFile) this.#reader.sourceFiles.add(path.resolve(this.cwd, passwordFile));
    const resolved = await resolveClusterSection(typed, ref.loc, {
      locs: this.locs,
      cwd: this.cwd,
      env: this.#env,
    });
    if (Array.isArray(resolved)) {
      for (const issue of resolved) this.#issues.report(issue);
      return null;
    }
    return resolved;
  }

  /**
   * The `web` section with its bearer token resolved. A token problem stays inside the value (the
   * web API refuses to start; everything else loads). The token file joins the reload signature,
   * so rotating it restarts the server.
   */
  async #resolveWeb(): Promise<ResolvedWeb | null> {
    const ref = sectionRef(this.#sections, 'web');
    if (ref === undefined) return null;
    const typed = ref.value;
    const tokenFile = typed.authToken?.fromFile;
    if (tokenFile) this.#reader.sourceFiles.add(path.resolve(this.cwd, tokenFile));
    return resolveWebSection(typed, { cwd: this.cwd, env: this.#env });
  }

  async #loadDirectory(directory: string): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(directory)).sort();
    } catch (error) {
      this.#issues.report({
        file: this.displayPath(directory),
        path: '',
        line: 0,
        message: `cannot list the configuration directory: ${describeIoError(error)}`,
      });
      return;
    }
    for (const name of names) {
      const kind = directoryEntryKind(name);
      if (kind === null) continue;
      this.#issues.startGroup();
      await this.#loadTopFile(path.join(directory, name), kind);
    }
  }

  /** One file given on the command line or listed in the config directory. */
  async #loadTopFile(absolute: string, kind: FileKind): Promise<void> {
    const real = await canonicalPath(absolute);
    const unit = await this.#reader.readUnit(absolute, real, kind);
    if ('error' in unit) {
      this.#issues.report({
        file: this.displayPath(absolute),
        path: '',
        line: 0,
        message: unit.error,
      });
      return;
    }
    const assembled = await this.#assemble(unit, [real]);
    for (const [section, ref] of assembled.sections)
      this.#adoptSection(this.#sections, section, ref);
    for (const dag of assembled.dags) {
      // The same DAG reached twice through a diamond include is one DAG.
      if (!this.#dagEntries.some((seen) => seen.typed === dag.typed)) this.#dagEntries.push(dag);
    }
    for (const draft of assembled.drafts) {
      // The same job reached twice through a diamond include is one job.
      if (this.#seenJobs.has(draft.typed)) continue;
      this.#seenJobs.add(draft.typed);
      const resolved = await resolveJob(draft, this);
      if ('message' in resolved) this.#issues.report(resolved);
      else this.#jobs.push({ job: resolved, draft });
    }
  }

  /**
  /**
   * A file with its includes: included jobs first (in include order, each built with its own
   * file's defaults), then inline jobs over the merged defaults layer. `chain` holds the real
   * paths of the files on the current include path, for cycle detection.
   */
  async #assemble(unit: FileUnit, chain: readonly string[]): Promise<Assembled> {
    for (const issue of unit.issues) this.#issues.report(issue);
    if (unit.kind === 'crontab') {
      return {
        layer: null,
        drafts: unit.jobs.map((entry) => ({ typed: entry.typed, layer: null, loc: entry.loc })),
        dags: [],
        sections: NO_SECTIONS,
      };
    }
    // Only explicitly written defaults are merged (a later include without defaults must not
    // reset an earlier include's customisation back to built-ins; see docs/deviations.md).
    let layer: TypedDefaults | null = null;
    const drafts: JobDraft[] = [];
    const dags: DagEntry[] = [];
    const sections = new Map<SingletonSection, SectionRef>();
    for (const include of unit.includes) {
      const target = path.resolve(path.dirname(unit.absolutePath), include.target);
      const real = await canonicalPath(target);
      if (chain.includes(real)) {
        this.#issues.report(
          issueAt(include.loc, `include cycle detected at ${this.displayPath(target)}`),
        );
        continue;
      }
      const included = await this.#reader.readUnit(target, real, kindByName(target));
      if ('error' in included) {
        this.#issues.report(
          issueAt(include.loc, `cannot read '${include.target}': ${included.error}`),
        );
        continue;
      }
      const assembled = await this.#assemble(included, [...chain, real]);
      if (assembled.layer !== null) layer = this.#mergeLayer(layer, assembled.layer);
      drafts.push(...assembled.drafts);
      dags.push(...assembled.dags);
      for (const [section, ref] of assembled.sections) this.#adoptSection(sections, section, ref);
    }
    if (unit.defaults !== null) layer = this.#mergeLayer(layer, unit.defaults);
    for (const entry of unit.jobs) drafts.push({ typed: entry.typed, layer, loc: entry.loc });
    dags.push(...unit.dags);
    for (const [section, ref] of unit.sections) this.#adoptSection(sections, section, ref);
    return { layer, drafts, dags, sections };
  }

  #mergeLayer(base: TypedDefaults | null, override: TypedDefaults): TypedDefaults {
    return base === null ? override : mergeLayer(base, override, this.locs);
  }

  /** At most one of each singleton section in the whole config (the same file twice is fine). */
  #adoptSection(
    into: Map<SingletonSection, SectionRef>,
    section: SingletonSection,
    ref: SectionRef,
  ): void {
    const existing = into.get(section);
    if (existing === undefined) {
      into.set(section, ref);
    } else if (existing !== ref) {
      this.#issues.report(
        issueAt(
          ref.loc,
          `Multiple '${section}' configurations found: first in ${existing.loc.file} (line ${existing.loc.line}), now in ${ref.loc.file} (line ${ref.loc.line})`,
        ),
      );
    }
  }

  /** Checks that need the whole assembled config; the job names and where each was written. */
  #crossCheck(): ReadonlyMap<string, Loc> {
    const stateRef = sectionRef(this.#sections, 'state');
    const hasState = stateRef !== undefined;
    if (stateRef !== undefined) {
      const state = resolveStateSection(stateRef.value, stateRef.loc, this);
      if (Array.isArray(state)) for (const issue of state) this.#issues.report(issue);
      else this.#state = state;
    }
    // An invalid state section still counts as present: its own errors say what is wrong.
    const jobApiOff = this.#state !== null && !this.#state.jobApi.enabled;
    const byName = new Map<string, Loc>();
    for (const { job, draft } of this.#jobs) {
      const nameLoc = this.locs.at(draft.typed, 'name', draft.loc);
      const first = byName.get(job.name);
      if (first === undefined) {
        byName.set(job.name, nameLoc);
      } else {
        this.#issues.report(
          issueAt(
            nameLoc,
            `duplicate job name '${job.name}' (first defined in ${first.file} at ${first.path} (line ${first.line}))`,
          ),
        );
      }
      if ((!hasState || jobApiOff) && job.secrets.length > 0) {
        this.#issues.report(
          issueAt(
            this.#fieldLoc(draft, 'secrets'),
            `Job ${job.name}: secrets need a 'state' section with the job API enabled`,
          ),
        );
      }
      if (!hasState && job.concurrencyScope === 'cluster') {
        this.#issues.report(
          issueAt(
            this.#fieldLoc(draft, 'concurrencyScope'),
            `Job ${job.name}: concurrencyScope cluster needs a 'state' section`,
          ),
        );
      }
    }
    return byName;
  }

  /** Where a (possibly inherited) job field was written. */
  #fieldLoc(draft: JobDraft, key: string): Loc {
    return (
      this.locs.get(draft.typed, key) ??
      (draft.layer === null ? undefined : this.locs.get(draft.layer, key)) ?? {
        ...draft.loc,
        path: childPath(draft.loc.path, key),
      }
    );
  }

  // ResolveServices

  parseSchedule(expression: string, timezone: string): Schedule {
    const key = `${timezone}\n${expression}`;
    let schedule = this.#schedules.get(key);
    if (schedule === undefined) {
      schedule = parseSchedule(expression, { timezone });
      this.#schedules.set(key, schedule);
    }
    return schedule;
  }

  assertTimezone(name: string): void {
    assertTimezone(name);
  }

  localTimezone(): string {
    this.#localZone ??= localTimezone();
    return this.#localZone;
  }

  readEnvFile(absolute: string): Promise<EnvFileRead> {
    return this.#reader.readEnvFile(absolute);
  }

  identityDatabase(): Promise<IdentityDatabase> {
    this.#identity ??= loadIdentityDatabase(this.#passwdPath, this.#groupPath);
    return this.#identity;
  }

  displayPath(absolute: string): string {
    return displayPath(absolute, this.cwd);
  }
}

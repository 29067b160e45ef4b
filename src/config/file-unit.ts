// One config file typed by the schema (docs/configuration.md "Top-level sections"): its
// defaults, includes, jobs and singleton sections. Jobs are typed one by one so a broken job does
// not hide the others.
import {
  INCLUDE_SCHEMA,
  LOGGING_SCHEMA,
  TOP_LEVEL_KEYS,
  type SingletonSection,
  type TypedLogging,
} from './config-schema.js';
import { typeClusterSection, type TypedCluster } from './cluster-schema.js';
import { typeDags, type DagEntry } from './dag-section.js';
import { childPath, type ConfigIssue, type Loc, type LocTable } from './issues.js';
import { DEFAULTS_SCHEMA, JOB_SCHEMA, type TypedDefaults, type TypedJob } from './job-schema.js';
import {
  INVALID,
  OMIT,
  isEmptyValue,
  unknownKeyMessage,
  walk,
  walkItems,
  type WalkContext,
} from './schema.js';
import { STATE_SCHEMA, type TypedState } from './state-section.js';
import { typeWebSection, type TypedWeb } from './web-section.js';
import { describeRawNode, type RawNode } from './yaml-tree.js';

export interface IncludeRef {
  /** As written. */
  readonly target: string;
  readonly loc: Loc;
}

/** A singleton section as typed, and where it was written. */
export type SectionRef =
  | { readonly section: 'logging'; readonly value: TypedLogging; readonly loc: Loc }
  | { readonly section: 'web'; readonly value: TypedWeb; readonly loc: Loc }
  | { readonly section: 'state'; readonly value: TypedState; readonly loc: Loc }
  | { readonly section: 'cluster'; readonly value: TypedCluster; readonly loc: Loc };

export type SectionRefs = ReadonlyMap<SingletonSection, SectionRef>;

/** The section `section` of `refs`, narrowed to its own type. */
export function sectionRef<S extends SingletonSection>(
  refs: SectionRefs,
  section: S,
): Extract<SectionRef, { readonly section: S }> | undefined {
  const ref = refs.get(section);
  return ref !== undefined && isSection(ref, section) ? ref : undefined;
}

function isSection<S extends SingletonSection>(
  ref: SectionRef,
  section: S,
): ref is Extract<SectionRef, { readonly section: S }> {
  return ref.section === section;
}

/** A typed job and where it was written (its list item, or its crontab line). */
export interface JobEntry {
  readonly typed: TypedJob;
  readonly loc: Loc;
}

export interface FileUnit {
  readonly kind: 'yaml' | 'crontab';
  readonly absolutePath: string;
  readonly file: string;
  readonly defaults: TypedDefaults | null;
  readonly includes: readonly IncludeRef[];
  /** Only the jobs that typed cleanly. */
  readonly jobs: readonly JobEntry[];
  /** Only the DAGs that typed cleanly (checked against the whole config later). */
  readonly dags: readonly DagEntry[];
  readonly sections: SectionRefs;
  readonly issues: readonly ConfigIssue[];
}

export function typeYamlDocument(
  root: RawNode | null,
  absolutePath: string,
  file: string,
  locs: LocTable,
): FileUnit {
  const issues: ConfigIssue[] = [];
  const ctx: WalkContext = { file, issues, locs };
  const sections = new Map<SingletonSection, SectionRef>();
  const includes: IncludeRef[] = [];
  const jobs: JobEntry[] = [];
  const dags: DagEntry[] = [];
  const unit: { -readonly [K in keyof FileUnit]: FileUnit[K] } = {
    kind: 'yaml',
    absolutePath,
    file,
    defaults: null,
    includes,
    jobs,
    dags,
    sections,
    issues,
  };
  // An empty document (or only comments) is a valid config without jobs.
  if (root === null || isEmptyValue(root)) return unit;
  if (root.kind !== 'map') {
    issues.push({
      file,
      path: '(document)',
      line: root.line,
      message: `expected a mapping with 'jobs', 'defaults', 'include'... at the top level, found ${describeRawNode(root)}`,
    });
    return unit;
  }
  for (const entry of root.entries) {
    const path = childPath('', entry.key);
    const loc = { file, path, line: entry.line };
    switch (entry.key) {
      case 'defaults': {
        const value = walk(DEFAULTS_SCHEMA, entry.value, path, entry.line, ctx);
        if (value !== INVALID && value !== OMIT) unit.defaults = value;
        break;
      }
      case 'include': {
        const value = walk(INCLUDE_SCHEMA, entry.value, path, entry.line, ctx);
        if (value === INVALID || value === OMIT) break;
        value.forEach((target, index) => {
          const itemLoc = locs.get(value, index) ?? loc;
          if (target.trim() === '') {
            issues.push({ ...itemLoc, message: 'include path must not be empty' });
          } else {
            includes.push({ target, loc: itemLoc });
          }
        });
        break;
      }
      case 'jobs':
        typeJobs(entry.value, path, entry.line, ctx, jobs);
        break;
      case 'dags':
        typeDags(entry.value, path, entry.line, ctx, dags);
        break;
      case 'logging': {
        const value = walk(LOGGING_SCHEMA, entry.value, path, entry.line, ctx);
        if (value !== INVALID && value !== OMIT) {
          sections.set('logging', { section: 'logging', value, loc });
        }
        break;
      }
      case 'state': {
        const value = walk(STATE_SCHEMA, entry.value, path, entry.line, ctx);
        if (value === OMIT) {
          issues.push({ ...loc, message: "the 'state' section needs at least a 'path'" });
        } else if (value !== INVALID) {
          sections.set('state', { section: 'state', value, loc });
        }
        break;
      }
      case 'cluster': {
        const value = typeClusterSection(entry.value, path, entry.line, ctx);
        if (value !== undefined) sections.set('cluster', { section: 'cluster', value, loc });
        break;
      }
      case 'web': {
        const value = typeWebSection(entry.value, path, entry.line, ctx);
        if (value !== undefined) sections.set('web', { section: 'web', value, loc });
        break;
      }
      default:
        issues.push({ ...loc, message: unknownKeyMessage(entry.key, TOP_LEVEL_KEYS) });
    }
  }
  return unit;
}

function typeJobs(
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
  out: JobEntry[],
): void {
  walkItems(
    JOB_SCHEMA,
    { plural: 'jobs', singular: 'job' },
    node,
    path,
    line,
    ctx,
    (value, loc, clean) => {
      if (value.name.trim() === '') {
        ctx.issues.push({
          ...(ctx.locs.get(value, 'name') ?? loc),
          message: 'a job name must not be empty',
        });
        return;
      }
      if (clean()) out.push({ typed: value, loc });
    },
  );
}

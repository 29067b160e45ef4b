// Report templates (docs/reports.md "Templates"): Jinja syntax rendered by nunjucks with Jinja's
// stock settings (no autoescape, one trailing newline of the source dropped, newlines normalised),
// Python's way of printing values (None, True, ['a', 'b']), a Jinja-compatible `tojson`, the
// template variables of a finished run, and the default texts. It renders; it sends nothing.
import type * as NunjucksModule from 'nunjucks';
import {
  DEFAULT_BODY_TEMPLATE,
  DEFAULT_SENTRY_BODY_TEMPLATE,
  DEFAULT_SUBJECT_TEMPLATE,
  type ResolvedJob,
} from '../config/index.js';
import { renderRunResources, type RunUsageSummary } from '../resources/index.js';
import type { RunOutcome } from '../runner/index.js';
import { toJinjaJson, toPythonText } from './jinja-values.js';
import { ReportError, type ReporterName } from './report-error.js';

// The default subject and bodies are the reference's texts, defined with the job schema (they
// are part of every job's identity).
export { DEFAULT_BODY_TEMPLATE, DEFAULT_SENTRY_BODY_TEMPLATE, DEFAULT_SUBJECT_TEMPLATE };

/**
 * `{"text": <subject + newline + body as a JSON string>}`. The body's own final newline is
 * left out of the filter block: inside it the source's trailing-newline rule does not apply,
 * and the text must equal what the Sentry body renders.
 */
export const DEFAULT_WEBHOOK_BODY_TEMPLATE = `{"text": {% filter tojson %}${DEFAULT_SUBJECT_TEMPLATE}\n${DEFAULT_BODY_TEMPLATE.slice(0, -1)}{% endfilter %}}`;

/** The variables every report template sees. */
export interface TemplateVariables {
  readonly name: string;
  readonly success: boolean;
  readonly fail_reason: string | null;
  readonly stdout: string | null;
  readonly stderr: string | null;
  readonly exit_code: number | null;
  readonly command: string | readonly string[];
  readonly shell: string;
  readonly environment: Readonly<Record<string, string>> | null;
  readonly cpu_seconds: number | null;
  readonly cpu_user_seconds: number | null;
  readonly cpu_system_seconds: number | null;
  readonly max_rss_bytes: number | null;
}

/**
 * The variables of a finished run. `usage` is the run's resource usage (monitorResources); null
 * for an unmonitored run, whose cpu_* and max_rss_bytes are then None. The numbers are the ones
 * its run record shows.
 */
export function buildTemplateVariables(
  job: ResolvedJob,
  outcome: RunOutcome,
  usage: RunUsageSummary | null = null,
): TemplateVariables {
  const resources = usage === null ? null : renderRunResources(usage, false);
  return {
    name: job.name,
    success: outcome.failReason === null,
    fail_reason: outcome.failReason,
    stdout: outcome.stdout?.text ?? null,
    stderr: outcome.stderr?.text ?? null,
    exit_code: outcome.exitCode,
    command: job.command.kind === 'argv' ? [...job.command.argv] : job.command.script,
    shell: job.shell,
    environment: outcome.environment === null ? null : { ...outcome.environment },
    cpu_seconds: resources?.cpu_total_seconds ?? null,
    cpu_user_seconds: resources?.cpu_user_seconds ?? null,
    cpu_system_seconds: resources?.cpu_system_seconds ?? null,
    max_rss_bytes: resources?.max_rss_bytes ?? null,
  };
}

export interface TemplateRenderer {
  /** Render `source` (compiled once per distinct source). Throws on a template error. */
  render(source: string, variables: TemplateVariables): Promise<string>;
  /** How many sources were compiled so far (a cache hit compiles nothing). */
  readonly compilations: number;
}

/**
 * Render the configured template (or the default when unset) for a reporter; a template error
 * becomes a ReportError naming the reporter and the key.
 */
export async function renderTemplate(
  templates: TemplateRenderer,
  reporter: ReporterName,
  key: string,
  source: string | null,
  defaultSource: string,
  variables: TemplateVariables,
): Promise<string> {
  try {
    return await templates.render(source ?? defaultSource, variables);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ReportError(
      reporter,
      `Cannot render the ${reporter} ${key} template: ${message.replace(/\s*\n\s*/g, ' ').trim()}`,
    );
  }
}

/** Compiled templates kept per renderer; past this many distinct sources the oldest go. */
export const TEMPLATE_CACHE_SIZE = 256;

type Nunjucks = typeof NunjucksModule.default;

/** The shape of nunjucks' compiled template that render() drives (not in @types/nunjucks). */
type RootRenderFunction = (
  env: unknown,
  context: unknown,
  frame: unknown,
  runtime: NunjucksRuntime,
  callback: unknown,
) => unknown;

interface NunjucksRuntime {
  readonly SafeString: abstract new (...args: never[]) => object;
  readonly [key: string]: unknown;
}

interface CompiledTemplate {
  render(context: object): string;
  rootRenderFunc: RootRenderFunction;
  compile(): void;
}

export function createTemplateRenderer(cacheSize = TEMPLATE_CACHE_SIZE): TemplateRenderer {
  let environment: Promise<NunjucksModule.Environment> | undefined;
  const compiled = new Map<string, Promise<CompiledTemplate>>();
  let compilations = 0;

  function compile(source: string): Promise<CompiledTemplate> {
    const cached = compiled.get(source);
    if (cached !== undefined) {
      // Re-insert: the Map's order is the eviction order (least recently used first).
      compiled.delete(source);
      compiled.set(source, cached);
      return cached;
    }
    // The promise is cached, so reports rendering the same new source at once compile it once.
    const template = compileNow(source);
    compiled.set(source, template);
    template.catch(() => compiled.delete(source));
    if (compiled.size > cacheSize) {
      const oldest = compiled.keys().next();
      if (oldest.done !== true) compiled.delete(oldest.value);
    }
    return template;
  }

  async function compileNow(source: string): Promise<CompiledTemplate> {
    environment ??= createEnvironment();
    const nunjucks = await loadNunjucks();
    const template = new nunjucks.Template(
      jinjaSource(source),
      await environment,
      'template',
    ) as unknown as CompiledTemplate;
    template.compile();
    compilations++;
    printLikePython(template);
    return template;
  }

  return {
    async render(source, variables) {
      const template = await compile(source);
      return template.render(variables);
    },
    get compilations() {
      return compilations;
    },
  };
}

/** Jinja's lexer: every newline style becomes \n and one trailing newline is dropped. */
export function jinjaSource(source: string): string {
  const lines = source.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

let nunjucksModule: Promise<Nunjucks> | undefined;

/**
 * nunjucks is loaded on the first render (it costs ~45 ms at start-up). Its Jinja-compat layer
 * (True/False/None literals, slices, dict.items()/keys()/values(), list methods) patches the
 * module itself, so it is installed exactly once per process: this memo of the import is
 * deliberately module-level.
 */
async function loadNunjucks(): Promise<Nunjucks> {
  nunjucksModule ??= import('nunjucks').then((module) => {
    const nunjucks = module.default;
    nunjucks.installJinjaCompat();
    return nunjucks;
  });
  return nunjucksModule;
}

async function createEnvironment(): Promise<NunjucksModule.Environment> {
  const nunjucks = await loadNunjucks();
  const environment = new nunjucks.Environment(null, {
    autoescape: false,
    throwOnUndefined: false,
    trimBlocks: false,
    lstripBlocks: false,
  });
  environment.addFilter('tojson', (value: unknown, ...rest: unknown[]) =>
    toJinjaJson(value, { indent: indentArgument(rest) }),
  );
  return environment;
}

/** `tojson(2)` or `tojson(indent=2)`; nunjucks passes keyword arguments as a last object. */
function indentArgument(rest: readonly unknown[]): number | null {
  const [first] = rest;
  if (typeof first === 'number') return first;
  if (typeof first === 'object' && first !== null && 'indent' in first) {
    const indent = first.indent;
    return typeof indent === 'number' ? indent : null;
  }
  return null;
}

/**
 * Every `{{ expression }}` goes through runtime.suppressValue, which nunjucks passes to the
 * compiled root function; handing it a copy of the runtime whose suppressValue prints like
 * Python's str() changes only this template, not the shared module. memberLookup is wrapped
 * too: the Jinja-compat slice of a string returns a list of characters, Python a string.
 */
function printLikePython(template: CompiledTemplate): void {
  const root = template.rootRenderFunc;
  if (typeof root !== 'function') throw new Error('Cannot adapt nunjucks: no compiled root');
  template.rootRenderFunc = (env, context, frame, runtime, callback) => {
    const isSafeString = (value: object): boolean => value instanceof runtime.SafeString;
    const memberLookup = runtime['memberLookup'] as (...args: unknown[]) => unknown;
    const patched: NunjucksRuntime = {
      ...runtime,
      suppressValue: (value: unknown) => toPythonText(value, isSafeString),
      memberLookup: (target: unknown, ...rest: unknown[]) => {
        const found = memberLookup(target, ...rest);
        const isSlice = rest.length === 3;
        return isSlice && typeof target === 'string' && Array.isArray(found)
          ? found.join('')
          : found;
      },
    };
    return root(env, context, frame, patched, callback);
  };
}

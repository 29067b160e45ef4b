// Parses the arguments of one job-facing action the way the reference's argparse does (docs/cli.md
// "Job-facing commands"): options anywhere among the positionals, `--opt=value`, `-oVALUE`, unique
// prefixes of long options, negative numbers as positionals, the scope pair mutually exclusive.
// Pure: it returns the parsed arguments, the help text or a usage error, and prints nothing.

export type OptionKind = 'flag' | 'string' | 'float' | 'int';

export interface OptionSpec {
  /** The key the value is read back by (`args.float('ttl')`). */
  readonly key: string;
  readonly long: `--${string}`;
  readonly short?: `-${string}`;
  readonly kind: OptionKind;
  /** Shown in usage and help for options that take a value. */
  readonly metavar?: string;
  readonly help: string;
}

export interface PositionalSpec {
  readonly name: string;
  readonly optional?: boolean;
  readonly help: string;
}

export interface ArgsSpec {
  /** `yacron2 state get`: the usage line's command words. */
  readonly usageName: string;
  readonly summary: string;
  readonly positionals: readonly PositionalSpec[];
  readonly options: readonly OptionSpec[];
  /** Accepts `--scope NAME` / `--global` (mutually exclusive). */
  readonly scoped: boolean;
  /** `lock run`: a command follows `--`. */
  readonly takesCommand?: boolean;
}

export type ParseResult =
  | { readonly kind: 'parsed'; readonly args: ParsedArgs }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'usage-error'; readonly message: string; readonly usage: string };

type OptionValue = string | number | true;

export class ParsedArgs {
  readonly #values: ReadonlyMap<string, OptionValue>;
  /** In spec order; an omitted optional positional is absent. */
  readonly positionals: readonly string[];
  /** The scope to send: null = the run's default scope. */
  readonly scope: string | null;
  /** `lock run`: the words after `--` (empty when there were none). */
  readonly command: readonly string[];

  constructor(
    positionals: readonly string[],
    values: ReadonlyMap<string, OptionValue>,
    command: readonly string[],
  ) {
    this.positionals = positionals;
    this.#values = values;
    this.command = command;
    const scope = values.get('scope');
    this.scope =
      values.get('global') === true ? 'global' : typeof scope === 'string' ? scope : null;
  }

  /** The positional at `index`; the parser guarantees the required ones exist. */
  positional(index: number): string {
    return this.positionals[index] ?? '';
  }

  flag(key: string): boolean {
    return this.#values.get(key) === true;
  }

  string(key: string): string | undefined {
    const value = this.#values.get(key);
    return typeof value === 'string' ? value : undefined;
  }

  number(key: string): number | undefined {
    const value = this.#values.get(key);
    return typeof value === 'number' ? value : undefined;
  }
}

const HELP: OptionSpec = {
  key: 'help',
  long: '--help',
  short: '-h',
  kind: 'flag',
  help: 'show this help message and exit',
};
const SCOPE: OptionSpec = {
  key: 'scope',
  long: '--scope',
  kind: 'string',
  metavar: 'NAME',
  help: "act in scope NAME (default: the job's own scope)",
};
const GLOBAL: OptionSpec = {
  key: 'global',
  long: '--global',
  kind: 'flag',
  help: 'act in the shared scope `global`',
};

// Python's int() and float() syntax (argparse type=int / type=float): surrounding blanks, a sign,
// single underscores between digits; float also takes inf/infinity/nan, which JSON cannot carry.
const DIGITS = String.raw`\d(?:_?\d)*`;
const INT_PATTERN = new RegExp(String.raw`^\s*[+-]?${DIGITS}\s*$`);
const FLOAT_PATTERN = new RegExp(
  String.raw`^\s*[+-]?(?:${DIGITS}\.(?:${DIGITS})?|\.${DIGITS}|${DIGITS})(?:[eE][+-]?${DIGITS})?\s*$`,
);
/** argparse takes these as positionals, not options, when no option looks like a number. */
const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** Python int() of `text`, or null when it is not one. */
export function parsePythonInt(text: string): number | null {
  return INT_PATTERN.test(text) ? Number(text.replaceAll('_', '').trim()) : null;
}

/** Python float() of a finite `text`, or null (also for inf and nan). */
export function parsePythonFloat(text: string): number | null {
  if (!FLOAT_PATTERN.test(text)) return null;
  const value = Number(text.replaceAll('_', '').trim());
  return Number.isFinite(value) ? value : null;
}

export function parseArgs(
  spec: ArgsSpec,
  tokens: readonly string[],
  command: readonly string[] = [],
): ParseResult {
  const options = allOptions(spec);
  const values = new Map<string, OptionValue>();
  const positionals: string[] = [];
  const unrecognized: string[] = [];
  const error = (message: string): ParseResult => ({
    kind: 'usage-error',
    message,
    usage: usageLine(spec),
  });

  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] ?? '';
    if (!token.startsWith('-') || token === '-' || NEGATIVE_NUMBER.test(token)) {
      positionals.push(token);
      continue;
    }
    let option: OptionSpec | undefined;
    let inline: string | undefined;
    if (token.startsWith('--')) {
      const equals = token.indexOf('=');
      const name = equals < 0 ? token : token.slice(0, equals);
      inline = equals < 0 ? undefined : token.slice(equals + 1);
      const candidates = options.filter((candidate) => candidate.long === name);
      const matches =
        candidates.length > 0
          ? candidates
          : options.filter((candidate) => candidate.long.startsWith(name));
      if (matches.length > 1) {
        const names = matches.map((candidate) => candidate.long).join(', ');
        return error(`ambiguous option: ${name} could match ${names}`);
      }
      option = matches[0];
    } else {
      option = options.find((candidate) => candidate.short === token.slice(0, 2));
      if (token.length > 2) inline = token.slice(2);
    }
    if (option === undefined) {
      unrecognized.push(token);
      continue;
    }
    if (option === HELP) return { kind: 'help', text: helpText(spec) };
    const label = optionLabel(option);
    let value: OptionValue;
    if (option.kind === 'flag') {
      if (inline !== undefined) {
        return error(`argument ${label}: ignored explicit argument '${inline}'`);
      }
      value = true;
    } else {
      let text = inline;
      if (text === undefined) {
        const next = tokens[index + 1];
        if (
          next === undefined ||
          (next.startsWith('-') && next !== '-' && !NEGATIVE_NUMBER.test(next))
        ) {
          return error(`argument ${label}: expected one argument`);
        }
        text = next;
        index++;
      }
      const converted = convert(option.kind, text);
      if (converted === null) {
        return error(`argument ${label}: invalid ${option.kind} value: '${text}'`);
      }
      value = converted;
    }
    const rival = option === SCOPE ? GLOBAL : option === GLOBAL ? SCOPE : null;
    if (rival !== null && values.has(rival.key)) {
      return error(`argument ${label}: not allowed with argument ${optionLabel(rival)}`);
    }
    values.set(option.key, value);
  }

  const required = spec.positionals.filter((positional) => positional.optional !== true);
  if (positionals.length < required.length) {
    const missing = required.slice(positionals.length).map((positional) => positional.name);
    return error(`the following arguments are required: ${missing.join(', ')}`);
  }
  unrecognized.push(...positionals.slice(spec.positionals.length));
  if (unrecognized.length > 0) return error(`unrecognized arguments: ${unrecognized.join(' ')}`);
  return {
    kind: 'parsed',
    args: new ParsedArgs(positionals.slice(0, spec.positionals.length), values, command),
  };
}

function convert(kind: Exclude<OptionKind, 'flag'>, text: string): OptionValue | null {
  switch (kind) {
    case 'string':
      return text;
    case 'int':
      return parsePythonInt(text);
    case 'float':
      return parsePythonFloat(text);
  }
}

function allOptions(spec: ArgsSpec): OptionSpec[] {
  return [HELP, ...spec.options, ...(spec.scoped ? [SCOPE, GLOBAL] : [])];
}

function optionLabel(option: OptionSpec): string {
  return option.short === undefined ? option.long : `${option.short}/${option.long}`;
}

function optionUsage(option: OptionSpec): string {
  const name = option.short ?? option.long;
  return option.kind === 'flag' ? name : `${name} ${option.metavar ?? option.key.toUpperCase()}`;
}

export function usageLine(spec: ArgsSpec): string {
  const parts = [`usage: ${spec.usageName} [-h]`];
  for (const option of spec.options) parts.push(`[${optionUsage(option)}]`);
  if (spec.scoped) parts.push('[--scope NAME | --global]');
  for (const positional of spec.positionals) {
    parts.push(positional.optional === true ? `[${positional.name}]` : positional.name);
  }
  if (spec.takesCommand === true) parts.push('-- CMD [ARG ...]');
  return parts.join(' ');
}

export function helpText(spec: ArgsSpec): string {
  const rows = (entries: readonly (readonly [string, string])[]): string[] => {
    const width = Math.max(...entries.map(([left]) => left.length)) + 2;
    return entries.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
  };
  const lines = [usageLine(spec), '', spec.summary];
  if (spec.positionals.length > 0) {
    lines.push('', 'positional arguments:');
    lines.push(...rows(spec.positionals.map((positional) => [positional.name, positional.help])));
  }
  lines.push('', 'options:');
  lines.push(
    ...rows(
      allOptions(spec).map((option) => {
        const names = [option.short, option.long].filter((name) => name !== undefined).join(', ');
        const metavar =
          option.kind === 'flag' ? '' : ` ${option.metavar ?? option.key.toUpperCase()}`;
        return [`${names}${metavar}`, option.help];
      }),
    ),
  );
  return `${lines.join('\n')}\n`;
}

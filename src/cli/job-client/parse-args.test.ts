// parseArgs() against the argparse behaviour the reference's job commands have: interleaved
// options, `--opt=value`, unique prefixes, negative numbers, Python int/float syntax, the scope
// pair, and the usage errors and help it produces.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  parseArgs,
  parsePythonFloat,
  parsePythonInt,
  type ArgsSpec,
  type ParsedArgs,
  type ParseResult,
} from './parse-args.js';

const LOCK: ArgsSpec = {
  usageName: 'yacron2 lock acquire',
  summary: 'Take a permit.',
  positionals: [{ name: 'NAME', help: 'the lock' }],
  options: [
    { key: 'permits', long: '--permits', kind: 'int', metavar: 'N', help: 'permits' },
    { key: 'wait', long: '--wait', kind: 'flag', help: 'wait' },
    { key: 'timeout', long: '--timeout', kind: 'float', metavar: 'S', help: 'timeout' },
    { key: 'ttl', long: '--ttl', kind: 'float', metavar: 'S', help: 'ttl' },
  ],
  scoped: true,
};

const PUT: ArgsSpec = {
  usageName: 'yacron2 artifact put',
  summary: 'Publish.',
  positionals: [
    { name: 'NAME', help: 'name' },
    { name: 'FILE', optional: true, help: 'file' },
  ],
  options: [
    { key: 'output', long: '--output', short: '-o', kind: 'string', metavar: 'FILE', help: 'out' },
  ],
  scoped: false,
};

function parsed(result: ParseResult): ParsedArgs {
  if (result.kind !== 'parsed') assert.fail(`expected parsed arguments: ${JSON.stringify(result)}`);
  return result.args;
}

function usageError(result: ParseResult): string {
  if (result.kind !== 'usage-error')
    assert.fail(`expected a usage error: ${JSON.stringify(result)}`);
  return result.message;
}

void describe('parseArgs()', () => {
  void it('takes options before, between and after positionals, in both value spellings', () => {
    const args = parsed(parseArgs(LOCK, ['--permits', '2', 'db', '--timeout=1.5', '--wait']));
    assert.deepEqual(args.positionals, ['db']);
    assert.equal(args.number('permits'), 2);
    assert.equal(args.number('timeout'), 1.5);
    assert.equal(args.flag('wait'), true);
    assert.equal(args.number('ttl'), undefined);
    assert.equal(args.scope, null);
  });

  void it('accepts a unique prefix of a long option and refuses an ambiguous one', () => {
    assert.equal(parsed(parseArgs(LOCK, ['db', '--perm', '3'])).number('permits'), 3);
    assert.equal(parsed(parseArgs(LOCK, ['db', '--glob'])).scope, 'global');
    assert.match(
      usageError(parseArgs(LOCK, ['db', '--t', '1'])),
      /ambiguous option: --t could match --timeout, --ttl/,
    );
  });

  void it('--global means scope `global`, --scope NAME that scope; together they are a usage error', () => {
    assert.equal(parsed(parseArgs(LOCK, ['db', '--global'])).scope, 'global');
    assert.equal(parsed(parseArgs(LOCK, ['db', '--scope', 'team'])).scope, 'team');
    assert.equal(
      usageError(parseArgs(LOCK, ['db', '--scope', 'team', '--global'])),
      'argument --global: not allowed with argument --scope',
    );
    assert.equal(
      usageError(parseArgs(LOCK, ['--global', 'db', '--scope=x'])),
      'argument --scope: not allowed with argument --global',
    );
  });

  void it('reads Python int and float syntax and names the bad value', () => {
    assert.equal(parsed(parseArgs(LOCK, ['db', '--permits', ' +1_0 '])).number('permits'), 10);
    assert.equal(parsed(parseArgs(LOCK, ['db', '--ttl', '.5'])).number('ttl'), 0.5);
    assert.equal(parsed(parseArgs(LOCK, ['db', '--ttl', '1e1'])).number('ttl'), 10);
    assert.equal(
      usageError(parseArgs(LOCK, ['db', '--permits', '1.5'])),
      "argument --permits: invalid int value: '1.5'",
    );
    assert.equal(
      usageError(parseArgs(LOCK, ['db', '--ttl', 'soon'])),
      "argument --ttl: invalid float value: 'soon'",
    );
    assert.equal(
      usageError(parseArgs(LOCK, ['db', '--ttl', 'inf'])),
      "argument --ttl: invalid float value: 'inf'",
    );
  });

  void it('takes a negative number as a value or a positional, and `-` as a positional', () => {
    assert.equal(parsed(parseArgs(LOCK, ['db', '--permits', '-1'])).number('permits'), -1);
    assert.deepEqual(parsed(parseArgs(LOCK, ['-5'])).positionals, ['-5']);
    assert.deepEqual(parsed(parseArgs(PUT, ['report', '-'])).positionals, ['report', '-']);
    assert.equal(parsed(parseArgs(PUT, ['report', '-o', '-'])).string('output'), '-');
    assert.equal(parsed(parseArgs(PUT, ['report', '-oout.bin'])).string('output'), 'out.bin');
  });

  void it('reports a missing option value, a flag given a value, missing and surplus arguments', () => {
    assert.equal(
      usageError(parseArgs(LOCK, ['db', '--ttl'])),
      'argument --ttl: expected one argument',
    );
    assert.equal(
      usageError(parseArgs(PUT, ['r', '-o', '--x'])),
      'argument -o/--output: expected one argument',
    );
    assert.equal(
      usageError(parseArgs(LOCK, ['db', '--wait=yes'])),
      "argument --wait: ignored explicit argument 'yes'",
    );
    assert.equal(usageError(parseArgs(LOCK, [])), 'the following arguments are required: NAME');
    assert.equal(
      usageError(parseArgs(LOCK, ['db', 'extra', '--bogus'])),
      'unrecognized arguments: --bogus extra',
    );
    assert.equal(
      usageError(parseArgs(PUT, ['r', 'f', '--scope', 'x'])),
      'unrecognized arguments: --scope x',
    );
  });

  void it('omits an optional positional and keeps the command after `--`', () => {
    const args = parsed(parseArgs({ ...LOCK, takesCommand: true }, ['db'], ['sh', '-c', 'exit 3']));
    assert.deepEqual(args.command, ['sh', '-c', 'exit 3']);
    assert.deepEqual(parsed(parseArgs(PUT, ['report'])).positionals, ['report']);
  });

  void it('-h anywhere is help: usage line, summary, every option', () => {
    const result = parseArgs(LOCK, ['db', '--bogus', '-h']);
    if (result.kind !== 'help') assert.fail(`expected help: ${JSON.stringify(result)}`);
    const { text } = result;
    assert.match(
      text,
      /^usage: yacron2 lock acquire \[-h\] \[--permits N\] \[--wait\] \[--timeout S\] \[--ttl S\] \[--scope NAME \| --global\] NAME\n/,
    );
    assert.match(text, /Take a permit\./);
    assert.match(text, /--scope NAME +act in scope NAME/);
    assert.match(text, /-h, --help +show this help message and exit/);
  });
});

void describe('parsePythonInt() / parsePythonFloat()', () => {
  void it('accept what Python int() / float() accept, except non-finite floats', () => {
    assert.equal(parsePythonInt('007'), 7);
    assert.equal(parsePythonInt('1__0'), null);
    assert.equal(parsePythonInt('0x10'), null);
    assert.equal(parsePythonFloat('5.'), 5);
    assert.equal(parsePythonFloat('-1.5E-3'), -0.0015);
    assert.equal(parsePythonFloat('nan'), null);
    assert.equal(parsePythonFloat('2026-06-01'), null);
  });
});

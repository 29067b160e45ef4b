// The `yacron2` command line: parses argv, routes to the daemon or a subcommand, and maps
// errors to exit codes. The only place that decides the process exit code. Subcommands are
// imported lazily so each path loads only what it needs.
import { existsSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { describeError, isYacronError, readPackageVersion, systemClock } from '../common/index.js';
import { isLogLevelName } from '../logging/index.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, exitCodeFor } from './exit-codes.js';
import { processIo, type CommandIo } from './io.js';
import { findJobCommand } from './job-client/route.js';
import type { AdminRequest } from '../state/admin/index.js';
import type { LogsFlagsWithTarget } from './commands/logs.js';

export const DEFAULT_CONFIG_PATH = '/etc/yacron2.d';
const DEFAULT_SHUTDOWN_GRACE_SECONDS = 60;
const DEFAULT_RELOAD_INTERVAL_SECONDS = 60;

interface DaemonFlags {
  config: string;
  logLevel: string;
  validateConfig?: boolean;
  jobSetId?: boolean;
  version?: boolean;
  shutdownGrace: string;
  reloadInterval: string;
}

export async function main(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  // docs/cli.md "Job-facing commands": job-facing commands (`state get`, `cursor`, `lock`, ...) go
  // to the job client, which reads no configuration. bin/yacron2.js takes this branch itself before
  // loading this module; it is here for callers of main().
  const jobCommand = findJobCommand(argv);
  if (jobCommand >= 0) {
    const { runJobCli, processJobProcess } = await import('./job-client/main.js');
    return runJobCli(argv.slice(jobCommand), { ...processJobProcess(), ...io });
  }
  // docs/cli.md "Job-facing commands": `--` is only legal before a `lock run` command, and every
  // `lock` command line went to the job client above.
  if (argv.includes('--')) {
    io.stderr('yacron2: error: `--` is only valid before a `lock run` command\n');
    return EXIT_USAGE;
  }

  let exitCode = EXIT_OK;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version arrive here with exit code 0; usage errors with 1 → spec says 2.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (isYacronError(error)) {
      io.stderr(`yacron2: ${error.message}\n`);
      return exitCodeFor(error.code);
    }
    io.stderr(`yacron2: unexpected error: ${describeError(error)}\n`);
    if (error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return EXIT_FAILURE;
  }
  return exitCode;
}

function buildProgram(io: CommandIo, setExitCode: (code: number) => void): Command {
  const program = new Command('yacron2')
    .description('A cron daemon configured in YAML')
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
    })
    .exitOverride()
    .showHelpAfterError(false)
    // Program options only before a subcommand: `yacron2 state -c X gc` must be refused.
    .enablePositionalOptions()
    .option('-c, --config <path>', 'configuration file or directory', DEFAULT_CONFIG_PATH)
    .option('-l, --log-level <level>', 'log level: DEBUG, INFO, WARNING, ERROR or CRITICAL', 'INFO')
    .option('-v, --validate-config', 'check the configuration, print the result and exit')
    .option('--job-set-id', 'print the job-set id of the configuration and exit')
    .option('--version', 'print the version and exit')
    .addOption(
      new Option(
        '--shutdown-grace <seconds>',
        'on SIGTERM, how long running jobs may finish before they are killed',
      ).default(String(DEFAULT_SHUTDOWN_GRACE_SECONDS)),
    )
    .addOption(
      new Option(
        '--reload-interval <seconds>',
        'how often the configuration files are checked for changes',
      ).default(String(DEFAULT_RELOAD_INTERVAL_SECONDS)),
    )
    .action(async (flags: DaemonFlags) => {
      setExitCode(await runDaemonCommand(flags, io, () => program.helpInformation()));
    });

  program
    .command('next')
    .description('print the next fire times of a schedule expression')
    .argument('<expression>', 'cron expression, nickname or @reboot (quote it)')
    .option('--tz <zone>', 'IANA timezone the schedule is evaluated in', 'UTC')
    .option('--from <iso>', 'start instant (ISO 8601); default now')
    .option('-n, --count <n>', 'how many fire times', '5')
    .action(async (expression: string, flags: { tz: string; from?: string; count: string }) => {
      const count = Number.parseInt(flags.count, 10);
      if (!Number.isInteger(count) || count < 1 || count > 1000) {
        io.stderr(`yacron2 next: -n must be an integer from 1 to 1000, got '${flags.count}'\n`);
        setExitCode(EXIT_USAGE);
        return;
      }
      const { runNext } = await import('./commands/next.js');
      const options = { expression, tz: flags.tz, count, nowMs: systemClock.now() };
      setExitCode(
        await runNext(flags.from === undefined ? options : { ...options, from: flags.from }, io),
      );
    });

  program
    .command('logs')
    .description("print a job's archived run output, or follow its live output (control API)")
    .argument('<job>', 'the job name')
    .option('--run <id>', 'print this archived run (an id from a header line)')
    .option('--last <n>', 'print the N newest archived runs, oldest first (default 1)')
    .option('-f, --follow', "print the running (or next) run's output as it comes, until it ends")
    .option(
      '--url <url>',
      'the control API: http://HOST:PORT or unix:///PATH (default: $YACRON2_API_URL, else http://127.0.0.1:8080)',
    )
    .option(
      '--token <token>',
      'the web.authToken (visible to other local users: prefer the file or the environment)',
    )
    .option(
      '--token-file <file>',
      'read the token from this file (default: $YACRON2_API_TOKEN, then $YACRON2_API_TOKEN_FILE)',
    )
    .option(
      '-c, --config <path>',
      "the daemon's configuration file or directory: its web.listen and web.authToken serve where no flag or variable says",
    )
    .action(async (job: string, flags: LogsFlagsWithTarget) => {
      const { runLogsCli, processLogsDeps } = await import('./commands/logs.js');
      // `yacron2 -c X logs JOB` too; the program's default path is not read unless asked for.
      const programConfig =
        program.getOptionValueSource('config') === 'cli'
          ? program.opts<{ config: string }>().config
          : undefined;
      const config = flags.config ?? programConfig;
      const withConfig = config === undefined ? flags : { ...flags, config };
      setExitCode(await runLogsCli(job, withConfig, processLogsDeps(io)));
    });

  registerStateCommand(program, io, setExitCode);
  return program;
}

/**
 * `yacron2 state ACTION`: routed by action name (docs/cli.md "yacron2 state"). The offline admin
 * actions are registered here; the job-facing `get|set|delete|keys` never reach commander (see
 * job-client/route.ts). `-c` is accepted before `state` or after the action, never in between.
 */
function registerStateCommand(
  program: Command,
  io: CommandIo,
  setExitCode: (code: number) => void,
): void {
  const state = program
    .command('state')
    .description('administer the durable store of the state section (offline)')
    .addHelpText(
      'after',
      '\nInside a job: yacron2 state {get,set,delete,keys} ... (see `yacron2 state get --help`)',
    )
    .argument('[action]')
    .action((action: string | undefined) => {
      if (action === undefined) {
        io.stdout('yacron2 state: no action given (see `yacron2 state --help`)\n');
      } else {
        io.stderr(
          `yacron2 state: error: unknown action '${action}' (see \`yacron2 state --help\`)\n`,
        );
      }
      setExitCode(EXIT_USAGE);
    });
  const configOption = (): Option =>
    new Option(
      '-c, --config <path>',
      'configuration file or directory (default: as before `state`)',
    );
  const run = async (request: AdminRequest, config: string | undefined): Promise<void> => {
    const { runStateAdminCli } = await import('./commands/state-admin.js');
    const configPath = config ?? program.opts<{ config: string }>().config;
    setExitCode(await runStateAdminCli({ configPath, request }, io));
  };
  state
    .command('backup')
    .description('write an owner-only .tar.gz of the store (safe against a live daemon)')
    .requiredOption('-o, --output <file>', 'the archive to write')
    .addOption(configOption())
    .action((flags: { output: string; config?: string }) =>
      run({ action: 'backup', output: flags.output }, flags.config),
    );
  state
    .command('restore')
    .description('restore a backup into the store (stop the daemon first)')
    .argument('<archive>', 'a .tar.gz written by `state backup`')
    .option('--force', 'merge into a store that already has data')
    .addOption(configOption())
    .action((archive: string, flags: { force?: boolean; config?: string }) =>
      run({ action: 'restore', archive, force: flags.force === true }, flags.config),
    );
  state
    .command('migrate')
    .description('copy the store to another path or mount (stop the daemon first)')
    .requiredOption('--dest <path>', 'the new state.path')
    .option('--dest-deployment-id <id>', 'the namespace at the destination (default: the same)')
    .option('--force', 'merge into a destination that already has data')
    .addOption(configOption())
    .action(
      (flags: { dest: string; destDeploymentId?: string; force?: boolean; config?: string }) =>
        run(
          {
            action: 'migrate',
            dest: flags.dest,
            ...(flags.destDeploymentId === undefined
              ? {}
              : { destDeploymentId: flags.destDeploymentId }),
            force: flags.force === true,
          },
          flags.config,
        ),
    );
  state
    .command('gc')
    .description('run one garbage-collection pass')
    .option('--dry-run', 'report what would be removed, remove nothing')
    .addOption(configOption())
    .action((flags: { dryRun?: boolean; config?: string }) =>
      run({ action: 'gc', dryRun: flags.dryRun === true }, flags.config),
    );
  state
    .command('check')
    .description('probe writability and print an inventory of the store')
    .addOption(configOption())
    .action((flags: { config?: string }) => run({ action: 'check' }, flags.config));
  state
    .command('migrate-schema')
    .description('rewrite records of older record schemes to the current one')
    .option('--dry-run', 'count, convert nothing')
    .addOption(configOption())
    .action((flags: { dryRun?: boolean; config?: string }) =>
      run({ action: 'migrate-schema', dryRun: flags.dryRun === true }, flags.config),
    );
}

async function runDaemonCommand(
  flags: DaemonFlags,
  io: CommandIo,
  usage: () => string,
): Promise<number> {
  if (flags.version) {
    io.stdout(`${readPackageVersion()}\n`);
    return EXIT_OK;
  }
  if (!isLogLevelName(flags.logLevel)) {
    io.stderr(
      `yacron2: error: -l/--log-level must be DEBUG, INFO, WARNING, ERROR or CRITICAL, got '${flags.logLevel}'\n`,
    );
    return EXIT_USAGE;
  }
  const shutdownGraceSeconds = Number(flags.shutdownGrace);
  if (!Number.isFinite(shutdownGraceSeconds) || shutdownGraceSeconds < 0) {
    io.stderr(
      `yacron2: error: --shutdown-grace must be a number of seconds >= 0, got '${flags.shutdownGrace}'\n`,
    );
    return EXIT_USAGE;
  }
  const reloadIntervalSeconds = Number(flags.reloadInterval);
  if (!Number.isFinite(reloadIntervalSeconds) || reloadIntervalSeconds < 1) {
    io.stderr(
      `yacron2: error: --reload-interval must be a number of seconds >= 1, got '${flags.reloadInterval}'\n`,
    );
    return EXIT_USAGE;
  }
  if (flags.config === DEFAULT_CONFIG_PATH && !existsSync(DEFAULT_CONFIG_PATH)) {
    io.stderr(
      'yacron2 error: configuration file not found, please provide one with the --config option\n',
    );
    io.stderr(usage());
    return EXIT_FAILURE;
  }
  const { runDaemonCli } = await import('./commands/daemon.js');
  return runDaemonCli(
    {
      configPath: flags.config,
      logLevel: flags.logLevel,
      validateOnly: flags.validateConfig === true,
      printJobSetId: flags.jobSetId === true,
      shutdownGraceMs: Math.round(shutdownGraceSeconds * 1000),
      reloadIntervalMs: Math.round(reloadIntervalSeconds * 1000),
    },
    io,
  );
}

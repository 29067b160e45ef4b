// `yacron2 [-c PATH] [-v] [--job-set-id]`: load the configuration, then validate, print the
// job-set id, or run the daemon until SIGTERM/SIGINT.
import {
  describeError,
  isYacronError,
  keepYoungGenerationSmall,
  systemClock,
} from '../../common/index.js';
import {
  createLineLogger,
  createRootLogger,
  type LogLevelName,
  type Logger,
} from '../../logging/index.js';
import { loadConfig, type ResolvedConfig } from '../../config/index.js';
import { installCliOnPath, type CliOnPath } from '../cli-on-path.js';
import { EXIT_FAILURE, EXIT_OK } from '../exit-codes.js';
import type { CommandIo } from '../io.js';

export interface DaemonCliOptions {
  readonly configPath: string;
  readonly logLevel: LogLevelName;
  readonly validateOnly: boolean;
  readonly printJobSetId: boolean;
  readonly shutdownGraceMs: number;
  readonly reloadIntervalMs: number;
}

export async function runDaemonCli(options: DaemonCliOptions, io: CommandIo): Promise<number> {
  // Loading and the one-shot answers print a line or two: pino loads only for the daemon.
  const startupLogger = createLineLogger({ level: options.logLevel });
  // Before the load's allocation burst (docs/performance.md "Memory").
  keepYoungGenerationSmall();
  if (options.printJobSetId || options.validateOnly) {
    const config = await loadOrReport(options.configPath, startupLogger);
    return config === null ? EXIT_FAILURE : answerOnce(options, config, io, startupLogger);
  }
  // The root the `logging` section reconfigures (docs/configuration.md "logging"); without a
  // section it writes the daemon's own lines to stderr at -l's level. Then the spawn helper:
  // forked while the daemon is small, it boots while the configuration loads
  // (docs/performance.md "The spawn path").
  const root = await createRootLogger({ level: options.logLevel });
  // Jobs find this daemon's own `yacron2` first on their PATH (docs/job-state.md "The injected
  // environment"); the wrapper's directory goes when the process does, however it exits.
  const cli = cliOnPath(process.env, root.logger);
  process.once('exit', cli.remove);
  try {
    const { startSpawner } = await import('../../runner/index.js');
    const spawner = startSpawner({ clock: systemClock, logger: root.logger, env: cli.env });
    const config = await loadOrReport(options.configPath, startupLogger).catch(async (error) => {
      await spawner.close();
      throw error;
    });
    if (config === null) {
      await spawner.close();
      return EXIT_FAILURE;
    }
    const { runDaemonUntilSignalled } = await import('../../daemon/index.js');
    await runDaemonUntilSignalled({
      config,
      logger: root.logger,
      rootLogger: root,
      shutdownGraceMs: options.shutdownGraceMs,
      reloadIntervalMs: options.reloadIntervalMs,
      spawner,
      env: cli.env,
    });
    return EXIT_OK;
  } finally {
    cli.remove();
    process.off('exit', cli.remove);
  }
}

/** The wrapper on the jobs' PATH; without a writable temp directory, jobs keep the PATH as is. */
function cliOnPath(env: NodeJS.ProcessEnv, logger: Logger): Pick<CliOnPath, 'env' | 'remove'> {
  try {
    return installCliOnPath({ env });
  } catch (error) {
    logger.warn(
      `Cannot put yacron2 on the jobs' PATH (${describeError(error)}); jobs run \`yacron2\` from their PATH as it is`,
    );
    return { env, remove: () => undefined };
  }
}

/** The configuration, or null once its error is logged. */
async function loadOrReport(path: string, logger: Logger): Promise<ResolvedConfig | null> {
  try {
    return await loadConfig(path);
  } catch (error) {
    if (!isYacronError(error)) throw error;
    logger.error(`Configuration error: ${describeError(error)}`);
    return null;
  }
}

/** `--job-set-id` and `-v`: one answer about the loaded configuration. */
async function answerOnce(
  options: DaemonCliOptions,
  config: ResolvedConfig,
  io: CommandIo,
  logger: Logger,
): Promise<number> {
  if (options.printJobSetId) {
    io.stdout(`${config.jobSetId}\n`);
    return EXIT_OK;
  }
  // A web error (empty token, unreadable token file) does not stop the daemon (the rest of the
  // config still runs, the API stays down), but validation must say so.
  if (config.web?.error) {
    logger.error(`Configuration error: ${config.web.error}`);
    return EXIT_FAILURE;
  }
  if (config.cluster) {
    const { validateClusterSection } = await import('./validate-cluster.js');
    const problems = await validateClusterSection(config.cluster, logger);
    for (const problem of problems) logger.error(`Configuration error: ${problem}`);
    if (problems.length > 0) return EXIT_FAILURE;
  }
  logger.info('Configuration is valid.');
  return EXIT_OK;
}

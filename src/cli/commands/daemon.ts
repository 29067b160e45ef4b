// `yacron2 [-c PATH] [-v] [--job-set-id]`: load the configuration, then validate, print the
// job-set id, or run the daemon until SIGTERM/SIGINT.
import {
  createLineLogger,
  createRootLogger,
  describeError,
  isYacronError,
  keepYoungGenerationSmall,
  type LogLevelName,
} from '../../common/index.js';
import { loadConfig } from '../../config/index.js';
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
  let config;
  try {
    config = await loadConfig(options.configPath);
  } catch (error) {
    if (!isYacronError(error)) throw error;
    startupLogger.error(`Configuration error: ${describeError(error)}`);
    return EXIT_FAILURE;
  }
  if (options.printJobSetId) {
    io.stdout(`${config.jobSetId}\n`);
    return EXIT_OK;
  }
  if (options.validateOnly) {
    // A web error (empty token, unreadable token file) does not stop the daemon (the rest of the
    // config still runs, the API stays down), but validation must say so.
    if (config.web?.error) {
      startupLogger.error(`Configuration error: ${config.web.error}`);
      return EXIT_FAILURE;
    }
    if (config.cluster) {
      const { validateClusterSection } = await import('./validate-cluster.js');
      const problems = await validateClusterSection(config.cluster, startupLogger);
      for (const problem of problems) startupLogger.error(`Configuration error: ${problem}`);
      if (problems.length > 0) return EXIT_FAILURE;
    }
    startupLogger.info('Configuration is valid.');
    return EXIT_OK;
  }
  const { runDaemonUntilSignalled } = await import('../../daemon/index.js');
  // The root the `logging` section reconfigures (docs/configuration.md "logging"); without a
  // section it writes the daemon's own lines to stderr at -l's level.
  const root = await createRootLogger({ level: options.logLevel });
  await runDaemonUntilSignalled({
    config,
    logger: root.logger,
    rootLogger: root,
    shutdownGraceMs: options.shutdownGraceMs,
    reloadIntervalMs: options.reloadIntervalMs,
  });
  return EXIT_OK;
}

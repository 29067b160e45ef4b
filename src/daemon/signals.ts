// The CLI's way to run the daemon: until SIGTERM or SIGINT, then a graceful stop; a second
// signal forces the exit (docs/security.md "Shutdown").
import { constants } from 'node:os';
import { compactHeap, createDeferred } from '../common/index.js';
import { startDaemon, type Daemon, type DaemonOptions } from './start.js';

/** The exit status of a forced exit: 128 + the signal's number, as if the signal had killed it. */
function forcedExitCode(signal: NodeJS.Signals): number {
  return 128 + ((constants.signals as Partial<Record<NodeJS.Signals, number>>)[signal] ?? 15);
}

/**
 * Run until SIGTERM or SIGINT, then shut down gracefully. The handlers are installed before
 * anything is started, so a signal during start-up drains the @reboot jobs it launched instead
 * of killing the daemon and orphaning them. A second SIGTERM or SIGINT exits at once: the
 * running jobs' process groups get SIGKILL and one line says what was abandoned. A stop that had
 * to abandon a hung part exits too (a hung fs call would otherwise keep the process alive).
 */
export async function runDaemonUntilSignalled(options: DaemonOptions): Promise<void> {
  const { logger } = options;
  let onStopRequested: (() => void) | undefined;
  let stopRequested = false;
  let daemon: Daemon | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested) {
      const abandoned = daemon === undefined ? ['the start-up'] : daemon.abandon();
      logger.warn(
        `Received ${signal} again: exiting now, abandoning ${abandoned.length > 0 ? abandoned.join(', ') : 'nothing'}`,
      );
      process.exit(forcedExitCode(signal));
    }
    stopRequested = true;
    logger.info(`Received ${signal}`);
    onStopRequested?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    daemon = await startDaemon(options);
    // The load and the start-up are behind us: hand their garbage back (docs/performance.md
    // "Memory").
    compactHeap();
    if (!stopRequested) {
      const stop = createDeferred();
      onStopRequested = () => stop.resolve();
      await stop.promise;
    }
    await daemon.stop();
    if (daemon.abandoned.length > 0) process.exit(0);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

// The CLI's way to run the daemon: until SIGTERM or SIGINT, then a graceful stop.
import { startDaemon, type DaemonOptions } from './start.js';

/**
 * Run until SIGTERM or SIGINT, then shut down gracefully. The handlers are installed before
 * anything is started, so a signal during start-up drains the @reboot jobs it launched instead
 * of killing the daemon and orphaning them; later signals change nothing.
 */
export async function runDaemonUntilSignalled(options: DaemonOptions): Promise<void> {
  let onStopRequested: (() => void) | undefined;
  let stopRequested = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested) return;
    stopRequested = true;
    options.logger.info(`Received ${signal}`);
    onStopRequested?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const daemon = await startDaemon(options);
    if (!stopRequested) {
      await new Promise<void>((resolve) => {
        onStopRequested = resolve;
      });
    }
    await daemon.stop();
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

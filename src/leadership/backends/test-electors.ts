// Real-time electors for the lease backends' integration tests: start a LeaseElector over a
// client and wait for a condition on its state, checked after every round (an event), bounded by
// a deadline that fails the test with what was last seen. No sleeps.
import { systemClock } from '../../common/index.js';
import { recordingLogger, type RecordingLogger } from '../../logging/testing.js';
import type { LeaseClient } from '../lease-client.js';
import { LeaseElector } from '../lease-elector.js';

export interface TestElector {
  readonly elector: LeaseElector;
  readonly logger: RecordingLogger;
  /** Resolves once `condition` holds after a round; rejects after `withinMs`. */
  until(
    condition: (elector: LeaseElector) => boolean,
    withinMs: number,
    what: string,
  ): Promise<void>;
}

export async function startElector(
  client: LeaseClient,
  nodeName: string,
  jobSetId: () => string = () => 'v1:test',
): Promise<TestElector> {
  const logger = recordingLogger();
  const waiters = new Set<() => void>();
  const elector = await LeaseElector.start(
    client,
    { nodeName, releaseTimeoutMs: 5000 },
    {
      clock: systemClock,
      logger,
      jobSetId,
      onRound: () => {
        for (const waiter of [...waiters]) waiter();
      },
    },
  );
  return {
    elector,
    logger,
    until(condition, withinMs, what) {
      if (condition(elector)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!condition(elector)) return;
          waiters.delete(check);
          timer.cancel();
          resolve();
        };
        const timer = systemClock.setTimer(() => {
          waiters.delete(check);
          const warnings = logger.at('warn').map((line) => line.message);
          reject(
            new Error(
              `${nodeName}: not ${what} within ${withinMs} ms (leader ${elector.isLeader()}, quorate ${elector.isQuorate()}, holder ${elector.leaderName()}; warnings: ${warnings.join(' | ')})`,
            ),
          );
        }, withinMs);
        waiters.add(check);
      });
    },
  };
}

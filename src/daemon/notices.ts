// Log lines the daemon writes about a configuration as a whole (at start and on reload).
import type { Logger } from '../logging/index.js';
import type { ResolvedConfig } from '../config/index.js';

export function logJobSet(logger: Logger, config: ResolvedConfig): void {
  const count = config.jobs.length;
  logger.info(`Job set id: ${config.jobSetId} (${count} job${count === 1 ? '' : 's'})`);
}

/** Per-job options that need the store and do nothing without a `state` section. */
export function warnStatelessOptions(logger: Logger, config: ResolvedConfig): void {
  if (config.state !== null) return;
  for (const job of config.jobs) {
    const inert: string[] = [];
    if (job.onMissed !== 'skip') inert.push(`onMissed ${job.onMissed}`);
    if (job.startingDeadlineMs !== null) inert.push('startingDeadlineSeconds');
    if (job.catchupJitterMs > 0) inert.push('catchupJitterSeconds');
    if (job.archiveOutput) inert.push('archiveOutput');
    if (inert.length === 0) continue;
    logger.warn(
      `Job ${job.name}: ${inert.join(', ')} ${inert.length === 1 ? 'has' : 'have'} no effect without a state section`,
    );
  }
}

/**
 * A numeric user that /etc/passwd does not know, without a `group`, runs with the nogroup gid
 * (config/identity.ts): say so, since the reference would have kept the daemon's gid.
 */
export function warnDefaultedGroups(logger: Logger, config: ResolvedConfig): void {
  for (const job of config.jobs) {
    if (job.uid === null || job.userName !== null || job.group !== null || job.gid === null) {
      continue;
    }
    logger.warn(
      `Job ${job.name}: user ${job.uid} is not in /etc/passwd and no group is set; it runs with gid ${job.gid} (nogroup)`,
    );
  }
}

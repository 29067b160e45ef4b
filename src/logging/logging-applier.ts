// Applying the `logging` section (docs/configuration.md "logging") on start-up and after every
// reload: only when it differs from the last section applied successfully; a section that
// cannot be applied is logged (`Error while configuring logging: ...`) and, since nothing was
// recorded as applied, tried again at the next reload; what it asks that cannot apply here is
// named in one warning. Removing the section returns to the daemon's defaults.
import { dumpPythonJson } from '../common/index.js';
import { LoggingSectionError, translateLoggingSection } from './logging-section.js';
import type { RootLogger } from './root-logger.js';

export type LoggingApplyResult = 'unchanged' | 'applied' | 'failed';

export class LoggingSectionApplier {
  readonly #root: RootLogger;
  /** Canonical JSON of the section applied last; null = none (the defaults). */
  #applied: string | null = null;

  constructor(root: RootLogger) {
    this.#root = root;
  }

  apply(section: Readonly<Record<string, unknown>> | null): LoggingApplyResult {
    const root = this.#root;
    const key = section === null ? null : dumpPythonJson(section);
    if (key === this.#applied) return 'unchanged';
    if (section === null) {
      root.configure(root.base);
      this.#applied = null;
      return 'applied';
    }
    let translated;
    try {
      translated = translateLoggingSection(section, root.base, root.current);
    } catch (error) {
      if (!(error instanceof LoggingSectionError)) throw error;
      root.logger.error(
        { logger: 'yacron2.config' },
        `Error while configuring logging: ${error.message}`,
      );
      return 'failed';
    }
    // Said before the new settings apply, so it reaches the output the operator watches now.
    if (translated.ignored.length > 0) {
      root.logger.warn(
        { logger: 'yacron2.config' },
        `The logging section is applied without what this daemon cannot do: ${translated.ignored.join('; ')}`,
      );
    }
    root.configure(translated.settings);
    this.#applied = key;
    return 'applied';
  }
}

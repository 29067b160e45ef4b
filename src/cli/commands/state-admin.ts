// `yacron2 state {backup|restore|migrate|gc|check|migrate-schema}` (docs/cli.md "yacron2 state"):
// load the config, take its `state` section, and run one offline admin action on the filesystem
// store. Every message, errors included, goes to stdout; failures are `yacron2 state error:
// <detail>` and exit 1. The admin code (and tar) is imported only here, only when such an action
// runs.
import { describeError, systemClock } from '../../common/index.js';
import { type Logger } from '../../logging/index.js';
import { loadConfig } from '../../config/index.js';
import type { AdminRequest } from '../../state/admin/index.js';
import { EXIT_FAILURE, EXIT_OK } from '../exit-codes.js';
import type { CommandIo } from '../io.js';

export interface StateAdminCliOptions {
  readonly configPath: string;
  readonly request: AdminRequest;
  /** Relative paths on the command line (archives, --dest) resolve against this. */
  readonly cwd?: string;
}

export async function runStateAdminCli(
  options: StateAdminCliOptions,
  io: CommandIo,
): Promise<number> {
  const print = (line: string): void => io.stdout(`${line}\n`);
  const fail = (detail: string): number => {
    print(`yacron2 state error: ${detail}`);
    return EXIT_FAILURE;
  };
  const cwd = options.cwd ?? process.cwd();
  let config;
  try {
    config = await loadConfig(options.configPath, { cwd });
  } catch (error) {
    return fail(describeError(error));
  }
  const state = config.state;
  if (state === null) {
    return fail(`the configuration at ${config.configPath} has no 'state' section`);
  }
  const admin = await import('../../state/admin/index.js');
  const { FsStateStore } = await import('../../state/index.js');
  const logger = stdoutLogger(print);
  try {
    const ok = await admin.runAdminAction(
      {
        state,
        nsDir: admin.namespaceDir(state.path, state.deploymentId),
        cwd,
        clock: systemClock,
        print,
        openStore: async () => {
          const store = new FsStateStore(
            { path: state.path, deploymentId: state.deploymentId, topology: state.topology },
            { clock: systemClock, logger },
          );
          await store.open();
          return store;
        },
      },
      options.request,
    );
    return ok ? EXIT_OK : EXIT_FAILURE;
  } catch (error) {
    if (admin.isAdminRefusal(error)) {
      print(error.message);
      return EXIT_FAILURE;
    }
    return fail(describeError(error));
  }
}

/** The store's own warnings (quarantines, unreadable files) as `state: warning:` lines. */
function stdoutLogger(print: (line: string) => void): Logger {
  const quiet: Logger['info'] = () => undefined;
  const loud: Logger['warn'] = (first: string | object, second?: string): void => {
    print(`state: warning: ${typeof first === 'string' ? first : (second ?? '')}`);
  };
  return { debug: quiet, info: quiet, warn: loud, error: loud, fatal: loud };
}

// The offline `yacron2 state` admin actions (docs/cli.md "yacron2 state"). Loaded only when such an
// action runs (lazily imported by the CLI), so the daemon and the job-facing commands never pay for
// tar.
import { backupStore } from './backup.js';
import { checkStore } from './check.js';
import { AdminRefusal, type AdminContext } from './context.js';
import { gcStore } from './gc.js';
import { migrateSchema } from './migrate-schema.js';
import { migrateStore } from './migrate.js';
import { restoreStore } from './restore.js';

export { AdminRefusal, type AdminContext, type AdminStateSettings } from './context.js';
export { namespaceDir } from './layout.js';

export type AdminRequest =
  | { readonly action: 'backup'; readonly output: string }
  | { readonly action: 'restore'; readonly archive: string; readonly force: boolean }
  | {
      readonly action: 'migrate';
      readonly dest: string;
      readonly destDeploymentId?: string;
      readonly force: boolean;
    }
  | { readonly action: 'gc'; readonly dryRun: boolean }
  | { readonly action: 'check' }
  | { readonly action: 'migrate-schema'; readonly dryRun: boolean };

export type AdminActionName = AdminRequest['action'];

/** Run one action; resolves true on success, false for a failure already printed. */
export async function runAdminAction(ctx: AdminContext, request: AdminRequest): Promise<boolean> {
  switch (request.action) {
    case 'backup':
      await backupStore(ctx, request.output);
      return true;
    case 'restore':
      await restoreStore(ctx, request);
      return true;
    case 'migrate':
      await migrateStore(ctx, request);
      return true;
    case 'gc':
      return gcStore(ctx, request);
    case 'check':
      await checkStore(ctx);
      return true;
    case 'migrate-schema':
      // Exit 0 even with failures counted (docs/cli.md "yacron2 state").
      await migrateSchema(ctx, request);
      return true;
  }
}

export function isAdminRefusal(error: unknown): error is AdminRefusal {
  return error instanceof AdminRefusal;
}

// `yacron2 state check`: open the store (which creates the layout and stamps the scheme), prove
// it writable with a probe write, and print an inventory: backend, namespace, topology, streams
// and records by prefix, documents, blobs, leases and quarantine.
import { YacronError } from '../../common/index.js';
import type { AdminContext } from './context.js';

export async function checkStore(ctx: AdminContext): Promise<void> {
  const store = await ctx.openStore();
  try {
    const description = await store.describe({ probeWrite: true });
    const where = description.root ?? ctx.nsDir;
    if (description.writable !== true)
      throw new YacronError('YC_ERR_STATE_ADMIN_FAILED', `the store at ${where} is not writable`);
    ctx.print(`state: store at ${where} is writable`);
    ctx.print(`state: backend: ${description.backend}`);
    ctx.print(`state: namespace: ${description.namespace}`);
    ctx.print(`state: topology: ${description.topology} (setting: ${description.topologySetting})`);
    // Advisory locks coordinate across hosts only on a shared mount that honours them.
    ctx.print(`state: shared_locking: ${description.topology === 'shared'}`);
    const stamped = description.stampedSchemaVersions.join(', ') || '(none)';
    ctx.print(`state: schema: ${description.schemaVersion} (stamped: ${stamped})`);
    // Counted from the file names: nothing is read or parsed.
    const byPrefix = new Map<string, { streams: number; records: number }>();
    for (const stream of (await store.inventory()).streams) {
      const slash = stream.name.indexOf('/');
      const prefix = slash < 0 ? stream.name : stream.name.slice(0, slash);
      const tally = byPrefix.get(prefix) ?? { streams: 0, records: 0 };
      tally.streams++;
      tally.records += stream.records;
      byPrefix.set(prefix, tally);
    }
    const { counts } = description;
    ctx.print(`state: streams: ${counts.streams}, records: ${counts.records}`);
    for (const [prefix, tally] of [...byPrefix].sort(([a], [b]) => a.localeCompare(b))) {
      ctx.print(`state:   ${prefix}: ${tally.streams} stream(s), ${tally.records} record(s)`);
    }
    ctx.print(
      `state: documents: ${counts.docs}, blobs: ${counts.blobs}, leases: ${counts.leases}, temp files: ${counts.tempFiles}`,
    );
    ctx.print(`state: quarantined: ${counts.quarantined}`);
    for (const warning of description.warnings) ctx.print(`state: warning: ${warning}`);
  } finally {
    await store.close();
  }
}

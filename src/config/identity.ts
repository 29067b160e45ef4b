// User and group lookup for `user`/`group` (docs/configuration.md "User and group"). Node has no
// getpwnam, so the passwd and group files are parsed here; a missing or unreadable file simply has
// no entries.
import { readFile } from 'node:fs/promises';

export interface PasswdEntry {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

export interface IdentityDatabase {
  readonly usersByName: ReadonlyMap<string, PasswdEntry>;
  readonly usersByUid: ReadonlyMap<number, PasswdEntry>;
  readonly groupsByName: ReadonlyMap<string, number>;
}

function parseId(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** `name:password:uid:gid:gecos:home:shell` lines; comments, NIS `+`/`-` and junk skipped. */
export function parsePasswd(text: string): Pick<IdentityDatabase, 'usersByName' | 'usersByUid'> {
  const usersByName = new Map<string, PasswdEntry>();
  const usersByUid = new Map<number, PasswdEntry>();
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    const name = fields[0];
    const uid = parseId(fields[2]);
    const gid = parseId(fields[3]);
    if (!name || name.startsWith('#') || name.startsWith('+') || name.startsWith('-')) continue;
    if (uid === undefined || gid === undefined) continue;
    const entry = { name, uid, gid };
    // First entry wins, like getpwnam/getpwuid scanning the file.
    if (!usersByName.has(name)) usersByName.set(name, entry);
    if (!usersByUid.has(uid)) usersByUid.set(uid, entry);
  }
  return { usersByName, usersByUid };
}

/** `name:password:gid:members` lines. */
export function parseGroup(text: string): ReadonlyMap<string, number> {
  const groups = new Map<string, number>();
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    const name = fields[0];
    const gid = parseId(fields[2]);
    if (!name || name.startsWith('#') || name.startsWith('+') || name.startsWith('-')) continue;
    if (gid === undefined || groups.has(name)) continue;
    groups.set(name, gid);
  }
  return groups;
}

async function readOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return '';
  }
}

export async function loadIdentityDatabase(
  passwdPath: string,
  groupPath: string,
): Promise<IdentityDatabase> {
  const [passwd, group] = await Promise.all([readOrEmpty(passwdPath), readOrEmpty(groupPath)]);
  return { ...parsePasswd(passwd), groupsByName: parseGroup(group) };
}

/**
 * The gid of a numeric user that /etc/passwd does not know, when no `group` is given: the
 * conventional nogroup/nobody gid. Keeping the daemon's gid (0, root) would make the privilege
 * drop incomplete.
 */
export const NOGROUP_GID = 65534;

export interface ResolvedIdentity {
  readonly uid: number | null;
  readonly gid: number | null;
  readonly userName: string | null;
}

/**
 * Numeric user: need not exist; when it does, its primary gid and login name are derived, and
 * when it does not, the gid is NOGROUP_GID unless `group` is given. Named user/group: must exist.
 * `group` overrides the gid derived from `user`.
 * Returns the error message (without the job prefix) and the failing field on failure.
 */
export function resolveIdentity(
  user: string | number | null,
  group: string | number | null,
  db: IdentityDatabase,
): ResolvedIdentity | { readonly error: string; readonly field: 'user' | 'group' } {
  let uid: number | null = null;
  let gid: number | null = null;
  let userName: string | null = null;
  if (typeof user === 'number') {
    if (user < 0) return { error: `user id must not be negative: ${user}`, field: 'user' };
    uid = user;
    const entry = db.usersByUid.get(user);
    if (entry) {
      gid = entry.gid;
      userName = entry.name;
    } else {
      gid = NOGROUP_GID;
    }
  } else if (user !== null) {
    const entry = db.usersByName.get(user);
    if (!entry) return { error: `User not found: '${user}'`, field: 'user' };
    uid = entry.uid;
    gid = entry.gid;
    userName = entry.name;
  }
  if (typeof group === 'number') {
    if (group < 0) return { error: `group id must not be negative: ${group}`, field: 'group' };
    gid = group;
  } else if (group !== null) {
    const found = db.groupsByName.get(group);
    if (found === undefined) return { error: `Group not found: '${group}'`, field: 'group' };
    gid = found;
  }
  return { uid, gid, userName };
}

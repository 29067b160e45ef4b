// The slice of fs-ext (no bundled types) the store uses: BSD flock(2) on a file descriptor.
declare module 'fs-ext' {
  /** `ex`/`sh` block; `exnb`/`shnb` throw (code EAGAIN or EWOULDBLOCK) when held; `un` unlocks. */
  export function flockSync(fd: number, flags: 'ex' | 'sh' | 'exnb' | 'shnb' | 'un'): void;
}

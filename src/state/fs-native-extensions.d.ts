// The slice of fs-native-extensions (no bundled types) the store uses: advisory flock(2).
declare module 'fs-native-extensions' {
  interface LockOptions {
    /** A shared (read) lock instead of an exclusive one. */
    shared?: boolean;
  }
  interface FsNativeExtensions {
    /** Non-blocking lock; false when another open file description holds a conflicting lock. */
    tryLock(fd: number, options?: LockOptions): boolean;
    /** Blocking lock run on the libuv thread pool. */
    waitForLock(fd: number, options?: LockOptions): Promise<void>;
    unlock(fd: number): void;
  }
  const fsNative: FsNativeExtensions;
  export default fsNative;
}

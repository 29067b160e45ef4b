// AsyncDisposable with the close() every long-lived object of this code base has.
export interface AsyncDisposableLike extends AsyncDisposable {
  close(): Promise<void>;
}

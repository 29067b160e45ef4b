// An expected refusal of a job API request, carried as an exception from the depth where it is
// found (a field check, a scope check, a store timeout) to the one place that writes responses.
// Bodies follow http-api B.3: JSON `{"error": ...}`, except 401, 404 and the transport-cap 413,
// which are bare framework errors (`bare: true`).

export class ApiError extends Error {
  readonly status: number;
  /** Answer with a plain `<status>: <reason>` body instead of JSON. */
  readonly bare: boolean;

  constructor(status: number, message: string, options: { bare?: boolean } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.bare = options.bare ?? false;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

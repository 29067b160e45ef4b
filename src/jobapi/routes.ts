// The /v1/ route table (docs/http-api.md "The job API"), assembled from one file per family.
import type { Route, RouteServices } from './route-types.js';
import { artifactRoutes } from './routes-artifact.js';
import { cursorRoutes } from './routes-cursor.js';
import { idempotencyRoutes } from './routes-idempotency.js';
import { kvRoutes } from './routes-kv.js';
import { lockRoutes } from './routes-lock.js';
import { runRoutes } from './routes-run.js';

export function buildRoutes(services: RouteServices): ReadonlyMap<string, Route> {
  return new Map(
    Object.entries({
      ...runRoutes(services),
      ...kvRoutes(services),
      ...cursorRoutes(services),
      ...idempotencyRoutes(services),
      ...artifactRoutes(services),
      ...lockRoutes(services),
    }),
  );
}

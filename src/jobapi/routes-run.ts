// The calling run's own facts and its staged secrets (docs/http-api.md "The job API", /v1/run,
// /v1/secret/*). Neither touches the store: secrets live only in memory, for the run they were
// staged for.
import { compareCodePoints, formatIsoUtc } from '../common/index.js';
import { queryFields, requiredString } from './request-fields.js';
import { NOT_FOUND, jsonReply, type Route, type RouteServices } from './route-types.js';

export function runRoutes(services: RouteServices): Record<string, Route> {
  return {
    '/v1/run': {
      method: 'GET',
      body: 'none',
      handle(request) {
        const { context, defaultScope } = request.run;
        return Promise.resolve(
          jsonReply({
            runId: context.runId,
            job: context.job.name,
            attempt: context.attempt,
            scheduledAt:
              context.scheduledAtMs === null ? null : formatIsoUtc(context.scheduledAtMs),
            host: services.host,
            defaultScope,
          }),
        );
      },
    },
    '/v1/secret/get': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const name = requiredString(queryFields(request.query), 'name');
        const value = (await request.run.secrets()).get(name);
        return value === undefined ? NOT_FOUND : jsonReply({ value });
      },
    },
    '/v1/secret/list': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const names = [...(await request.run.secrets()).keys()].sort(compareCodePoints);
        return jsonReply({ names });
      },
    },
  };
}

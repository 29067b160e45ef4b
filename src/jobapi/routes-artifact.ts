// The artifact store (docs/http-api.md "The job API", /v1/artifact/*): payloads are
// content-addressed blobs; each put appends the reference's record {at: float epoch s, name,
// sha256, size} to the stream `artifacts/<scope>` (the names GC reads, src/state/gc-rules.ts and
// gc-inventory.ts). Reads are newest-record-wins per name; a record whose blob GC already swept
// answers 410.
import { readFile } from 'node:fs/promises';
import { compareCodePoints, pyFloat } from '../common/index.js';
import { artifactStream, newestArtifactPerName as newestPerName } from '../state/index.js';
import { ApiError } from './api-error.js';
import { checkName } from './names.js';
import { optionalString, queryFields, requiredString } from './request-fields.js';
import {
  NOT_FOUND,
  epochSeconds,
  jsonReply,
  type Route,
  type RouteRequest,
  type RouteServices,
} from './route-types.js';
import { resolveScope } from './scopes.js';

function scopeOf(request: RouteRequest): string {
  return resolveScope(request.run.context, optionalString(queryFields(request.query), 'scope'));
}

function nameOf(request: RouteRequest): string {
  return checkName('name', requiredString(queryFields(request.query), 'name'));
}

export function artifactRoutes(services: RouteServices): Record<string, Route> {
  const { gate, clock, settings, payloads } = services;
  return {
    '/v1/artifact/put': {
      method: 'POST',
      body: 'upload',
      async handle(request) {
        const scope = scopeOf(request);
        const name = nameOf(request);
        const upload = request.upload;
        if (upload === null) throw new Error('an artifact put without its upload');
        const { size } = upload;
        if (settings.maxArtifactBytes !== null && size > settings.maxArtifactBytes) {
          throw new ApiError(
            'YC_ERR_REQUEST_TOO_LARGE',
            `artifact is ${size} bytes, over the maxArtifactBytes limit of ${settings.maxArtifactBytes}`,
          );
        }
        // The store takes the payload as bytes: read it back from the temp file, one payload in
        // memory at a time across the API.
        const sha256 = await payloads.run(async () => {
          const bytes = await readFile(upload.path);
          return gate.call('store an artifact', (store) => store.putBlob(bytes));
        });
        if (sha256 !== upload.sha256) {
          throw new Error(`the stored blob ${sha256} is not the uploaded ${upload.sha256}`);
        }
        const at = pyFloat(epochSeconds(clock.now()));
        await gate.call('record an artifact', (store) =>
          store.append(artifactStream(scope), { at, name, sha256, size }),
        );
        return jsonReply({ sha256, size });
      },
    },
    '/v1/artifact/get': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const scope = scopeOf(request);
        const name = nameOf(request);
        const records = await gate.call('list artifacts', (store) =>
          store.list(artifactStream(scope)),
        );
        const entry = newestPerName(records).get(name);
        if (entry === undefined) return NOT_FOUND;
        const bytes = await payloads.run(() =>
          gate.call('read an artifact', (store) => store.getBlob(entry.sha256)),
        );
        if (bytes === undefined) {
          throw new ApiError(
            'YC_ERR_BLOB_GONE',
            `artifact '${name}' in scope '${scope}' has a record but its blob ${entry.sha256} was garbage-collected`,
          );
        }
        return {
          kind: 'bytes',
          status: 200,
          body: bytes,
          headers: {
            'content-type': 'application/octet-stream',
            'x-yacron2-sha256': entry.sha256,
            'x-yacron2-size': String(bytes.length),
          },
        };
      },
    },
    '/v1/artifact/list': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const scope = scopeOf(request);
        const records = await gate.call('list artifacts', (store) =>
          store.list(artifactStream(scope)),
        );
        const artifacts = [...newestPerName(records).values()].sort((a, b) =>
          compareCodePoints(a.name, b.name),
        );
        return jsonReply({ scope, artifacts });
      },
    },
  };
}

// GET /node and GET /node/history (docs/http-api.md "GET /node and GET /node/history"): this node's CPU and memory now, and the
// `web.nodeHistory` ring. Served only when the daemon hands in a NodeView.
import type { FastifyInstance } from 'fastify';
import { renderNodeResources } from '../resources/index.js';
import type { RouteContext } from './app.js';
import { sendJson } from './responses.js';
import type { NodeHistoryWire, NodeWire } from './wire/index.js';

export function registerNodeRoutes(app: FastifyInstance, context: RouteContext): void {
  const { node, settings } = context;
  if (node === undefined) return;
  app.get('/node', (_request, reply) => {
    const reading = node.reading();
    const body: NodeWire = {
      node_name: node.nodeName(),
      resources: reading === null ? null : renderNodeResources(reading),
    };
    return sendJson(reply, settings.headers, body);
  });
  app.get('/node/history', (_request, reply) => {
    const history = node.history();
    const body: NodeHistoryWire = {
      node_name: node.nodeName(),
      enabled: history.enabled,
      interval: history.intervalMs === null ? null : history.intervalMs / 1000,
      points: history.points.map(([atMs, cpu, mem]) => [atMs / 1000, cpu, mem]),
    };
    return sendJson(reply, settings.headers, body);
  });
}

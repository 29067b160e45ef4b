// Cycle detection over a DAG's dependsOn edges (docs/dags.md "Task keys"): the error names the ids
// of one cycle in order. Pure.
import type { TypedDagTask } from './dag-schema.js';

/** A cycle of the dependsOn graph as ids (first id repeated at the end), or null. */
export function findCycle(
  tasks: readonly Pick<TypedDagTask, 'id' | 'dependsOn'>[],
): string[] | null {
  const edges = new Map(tasks.map((task) => [task.id, task.dependsOn ?? []] as const));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    const seen = state.get(id);
    if (seen === 'done') return null;
    if (seen === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle !== null) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const task of tasks) {
    const cycle = visit(task.id);
    if (cycle !== null) return cycle;
  }
  return null;
}

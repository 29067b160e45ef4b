// `-v` for a config with a `cluster` section (docs/configuration.md "cluster", docs/clustering.md
// "Certificates"): the section's advisories as warnings, and a dry run of the gossip certificate
// files that exist here (an unparsable PEM or a key that does not match its certificate fails
// the check; a file that only exists where the daemon runs is a warning).
import type { Logger } from '../../logging/index.js';
import type { ResolvedCluster, ResolvedGossipCluster } from '../../config/index.js';

/** Log the advisories and check the certificates; returns the error lines (empty = valid). */
export async function validateClusterSection(
  cluster: ResolvedCluster,
  logger: Logger,
): Promise<string[]> {
  const { validateTlsFiles } = await import('../../cluster/index.js');
  for (const advisory of cluster.advisories) logger.warn(advisory);
  const meshes: [ResolvedGossipCluster, string][] = [];
  if (cluster.backend === 'gossip') meshes.push([cluster, 'cluster.tls']);
  else if (cluster.observabilityMesh !== null) {
    meshes.push([cluster.observabilityMesh, 'cluster.observability.tls']);
  }
  const errors: string[] = [];
  for (const [mesh, what] of meshes) {
    const checked = await validateTlsFiles(mesh.tls, what);
    for (const warning of checked.warnings) logger.warn(warning);
    errors.push(...checked.errors);
  }
  return errors;
}

#!/bin/sh
# Makes the gossip StatefulSet's certificates (statefulset.yaml) and the Secret that carries them:
# a throwaway CA and one certificate per pod naming its stable DNS name
# yacron2-<n>.yacron2-gossip.<namespace>.svc, with examples/cluster/make-certs.sh.
#   ./make-secret.sh [NAMESPACE] [REPLICAS]     # default: default 3; needs openssl and kubectl
# The CA key stays in ./certs, never in the Secret: keep it offline (it signs new members).
set -eu
cd "$(dirname "$0")"
ns=${1:-default}
replicas=${2:-3}
names=''
i=0
while [ "$i" -lt "$replicas" ]; do
  names="$names yacron2-$i.yacron2-gossip.$ns.svc"
  i=$((i + 1))
done
# shellcheck disable=SC2086 # one argument per name
CERTS_DIR="$PWD/certs" sh ../../cluster/make-certs.sh $names
args="--from-file=certs/ca.pem"
for name in $names; do
  args="$args --from-file=certs/$name.pem --from-file=certs/$name.key"
done
# shellcheck disable=SC2086
kubectl -n "$ns" create secret generic yacron2-gossip-tls $args

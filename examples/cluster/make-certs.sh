#!/bin/sh
# Make a throwaway cluster CA and one certificate per node (EC P-256, SHA-256, EKU serverAuth +
# clientAuth: the shape Python yacron2 nodes accept too). Each certificate names the node (DNS)
# and 127.0.0.1 (IP), the address the example's peers use.
#   ./make-certs.sh                          # yacron-a, yacron-b, yacron-c into ./certs
#   CERTS_DIR=/certs ./make-certs.sh yacron-a yacron-b ...   # the compose demos' certgen
# CERTS_OWNER=uid:gid hands the node keys to the daemon's user (the image runs as 65534).
# A CERTS_DIR that already has ca.pem is left alone (a restarted certgen keeps the cluster's CA).
# Never reuse this CA for anything else: it is the whole trust boundary of the cluster.
set -eu
cd "$(dirname "$0")"
dir=${CERTS_DIR:-certs}
if [ "$#" -eq 0 ]; then set -- yacron-a yacron-b yacron-c; fi
mkdir -p "$dir"
if [ -s "$dir/ca.pem" ]; then
  echo "certificates already in $dir"
  exit 0
fi
chmod 700 "$dir"
cd "$dir"
umask 077
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -sha256 -days 825 -subj "/CN=yacron2 example cluster CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out ca.pem.partial
for node in "$@"; do
  openssl ecparam -name prime256v1 -genkey -noout -out "$node.key"
  openssl req -new -key "$node.key" -subj "/CN=$node" -out "$node.csr"
  printf '%s\n' \
    "subjectAltName=DNS:$node,IP:127.0.0.1" \
    "extendedKeyUsage=serverAuth,clientAuth" \
    "basicConstraints=CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" > "$node.ext"
  openssl x509 -req -in "$node.csr" -CA ca.pem.partial -CAkey ca.key -CAcreateserial -days 90 \
    -sha256 -extfile "$node.ext" -out "$node.pem.partial"
  rm "$node.csr" "$node.ext"
done
rm -f ca.pem.srl ca.srl
if [ -n "${CERTS_OWNER:-}" ]; then
  chown "$CERTS_OWNER" . ./*.key ./*.partial
fi
# The node certificates and the CA appear last and whole: a node waiting for its .pem finds its
# key already there.
for node in "$@"; do mv "$node.pem.partial" "$node.pem"; done
mv ca.pem.partial ca.pem
echo "certificates in $(pwd)"

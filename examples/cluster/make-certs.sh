#!/bin/sh
# Make a throwaway cluster CA and one certificate per node (EC P-256, SHA-256, EKU serverAuth +
# clientAuth: the shape Python yacron2 nodes accept too) in ./certs. Each certificate names the
# node (DNS) and 127.0.0.1 (IP), the address the example's peers use. Never reuse this CA for
# anything else: it is the whole trust boundary of the cluster.
set -eu
cd "$(dirname "$0")"
mkdir -p certs
chmod 700 certs
cd certs
umask 077
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -sha256 -days 825 -subj "/CN=yacron2 example cluster CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out ca.pem
for node in yacron-a yacron-b yacron-c; do
  openssl ecparam -name prime256v1 -genkey -noout -out "$node.key"
  openssl req -new -key "$node.key" -subj "/CN=$node" -out "$node.csr"
  printf '%s\n' \
    "subjectAltName=DNS:$node,IP:127.0.0.1" \
    "extendedKeyUsage=serverAuth,clientAuth" \
    "basicConstraints=CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" > "$node.ext"
  openssl x509 -req -in "$node.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 90 -sha256 \
    -extfile "$node.ext" -out "$node.pem"
  rm "$node.csr" "$node.ext"
done
rm -f ca.srl
echo "certificates in $(pwd)"

# The etcd demo's etcd (docker-compose.yml beside this file): Debian bookworm's etcd-server and
# etcdctl, one member, no auth, plain http, reached only over the compose network.
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends etcd-server etcd-client \
    && rm -rf /var/lib/apt/lists/*
ENV ETCDCTL_API=3
ENTRYPOINT ["etcd", "--data-dir", "/var/lib/etcd-demo", "--name", "demo", \
    "--listen-client-urls", "http://0.0.0.0:2379", "--advertise-client-urls", "http://etcd:2379"]

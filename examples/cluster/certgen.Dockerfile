# The compose demos' one-shot certificate maker: Debian with openssl, running make-certs.sh
# (CERTS_DIR, CERTS_OWNER and the node names come from the compose file). Demo only: it leaves the
# CA key in the volume the nodes mount; keep ca.key off real nodes.
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends openssl \
    && rm -rf /var/lib/apt/lists/*
COPY make-certs.sh /usr/local/bin/make-certs.sh
ENTRYPOINT ["sh", "/usr/local/bin/make-certs.sh"]

# syntax=docker/dockerfile:1
# The yacron2 image (README.md "Containers"): a build stage that compiles everything (TypeScript,
# the dashboard bundle, the native spawn helper, the native addons of npm ci), then a slim Node
# runtime that gets the built tree with production dependencies only and runs as nobody.
#
#   docker build -t yacron2 .                                      # the official node:24 base
#   docker build --build-arg NODE_IMAGE=node:22-bookworm-slim -t yacron2 .
#   podman build --format docker -t yacron2 .                     # the OCI format drops HEALTHCHECK
#   docker run --rm -p 127.0.0.1:8080:8080 -v "$PWD/my-crontab.yaml:/etc/yacron2.d/jobs.yaml:ro" yacron2
#
# Both stages take the same Debian bookworm Node base, so the native helper and the addons built
# in the first run against the second's glibc. Must not: add an init (tini): the daemon reaps the
# orphans of its jobs itself; nor carry the compiler, the dev dependencies or the sources into the
# runtime stage.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
# gcc for the native spawn helper (scripts/build-native.mjs), make/g++/python3 for node-gyp
# (fs-ext, unix-dgram). YACRON2_REQUIRE_NATIVE=1: a helper that does not compile fails the build
# instead of shipping an image that falls back to the slower Node helper.
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends gcc g++ make python3; \
    rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
# npm ci runs the package's prepare step (scripts/prepare.mjs), which builds nothing before the
# sources are here; the build below does.
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY native ./native
COPY src ./src
RUN YACRON2_REQUIRE_NATIVE=1 npm run build \
    && npm prune --omit=dev --no-audit --no-fund \
    && mkdir -p /out \
    && rm -rf dist/web-maps \
    && cp -a package.json bin dist node_modules /out/

# ---- runtime --------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="yacron2" \
      org.opencontainers.image.description="A container-friendly cron daemon configured in YAML, with durable state and clustering" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.documentation="README.md#containers"

COPY --from=build /out /opt/yacron2
COPY docker/healthcheck.mjs /opt/yacron2/docker/healthcheck.mjs
# `yacron2` on PATH, for people (`docker exec … yacron2 state get …`) and for jobs.
RUN ln -s /opt/yacron2/bin/yacron2.js /usr/local/bin/yacron2 \
    && mkdir -p /etc/yacron2.d /var/lib/yacron2 \
    && chown 65534:65534 /var/lib/yacron2

# Non-root by default (65534 = nobody). `user:`/`group:` jobs need root and util-linux `setpriv`
# (in the image): run with `--user 0` (README.md "Containers").
USER 65534:65534
WORKDIR /var/lib/yacron2

# docker stop sends SIGTERM and kills 10 s later: running jobs get 5 s to finish, the cancel
# sequence and the rest of the shutdown the remaining 5 (docs/security.md "Shutdown"). Raise
# --shutdown-grace and `docker stop -t` / `stop_grace_period` together.
STOPSIGNAL SIGTERM
# Unset YACRON2_HEALTH_URL (no control API configured): always healthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["node", "/opt/yacron2/docker/healthcheck.mjs"]

ENTRYPOINT ["yacron2", "--shutdown-grace", "5"]
CMD ["-c", "/etc/yacron2.d"]

# mockhttp's container image (docs/containers.md).
#
#   docker build -t mockhttp .                      # from PyPI's wheels, on python:3.12-slim
#   docker build --build-arg BASE=python:3.13-slim -t mockhttp .
#   docker run --rm -p 8080:8080 -v "$PWD/mocks:/mocks:ro" mockhttp
#
# Offline builds (no package index inside the build): put every wheel in ./wheelhouse first
# (`pip wheel -w wheelhouse '.[fast,http2,tls,metrics]'`); scripts/container_smoke.sh does.
ARG BASE=python:3.12-slim
FROM ${BASE}

ARG EXTRAS=fast,http2,tls,metrics
COPY . /src
RUN set -eu; \
    python3 -m venv /opt/mockhttp; \
    if ls /src/wheelhouse/mockhttp-*.whl >/dev/null 2>&1; then \
        /opt/mockhttp/bin/pip install --no-cache-dir --no-index --find-links /src/wheelhouse "mockhttp[${EXTRAS}]"; \
    else \
        /opt/mockhttp/bin/pip install --no-cache-dir "/src[${EXTRAS}]"; \
    fi; \
    install -m 0755 /src/docker/entrypoint.sh /usr/local/bin/mockhttp-entrypoint; \
    mkdir -p /mocks; \
    rm -rf /src

ENV PATH=/opt/mockhttp/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    MOCKHTTP_PORT=8080 \
    MOCKHTTP_MOCKS=/mocks

# Not root: any unprivileged uid works (the image writes nothing outside /tmp).
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=3 \
    CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/__mockhttp/health' % os.environ.get('MOCKHTTP_PORT', '8080'), timeout=2)"]
ENTRYPOINT ["mockhttp-entrypoint"]
CMD []

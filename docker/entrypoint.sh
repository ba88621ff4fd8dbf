#!/bin/sh
# The container's entry point (docs/containers.md): `mockhttp serve` on all interfaces, the
# mock files of $MOCKHTTP_MOCKS (the mounted folder; the built-in mocks when it holds none),
# and the admin API locked by a token.
#
#   (no arguments)          serve as above
#   --flag ...              serve as above, with these `mockhttp serve` flags added
#   any other command       run it (e.g. `mockhttp check ...`, `sh`)
set -eu

case "${1:-}" in
    ""|-*) ;;
    *) exec "$@" ;;
esac

# The admin API can change every mock: inside a container it is reachable from the network,
# so it is locked unless you choose a token (MOCKHTTP_ADMIN_TOKEN) or open it on purpose
# (MOCKHTTP_ADMIN=open).  A generated token is never printed: nobody else can read it.
if [ -z "${MOCKHTTP_ADMIN_TOKEN:-}" ] && [ "${MOCKHTTP_ADMIN:-locked}" != "open" ]; then
    MOCKHTTP_ADMIN_TOKEN=$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')
    export MOCKHTTP_ADMIN_TOKEN
    echo "mockhttp: the admin API is locked (set MOCKHTTP_ADMIN_TOKEN to use it)" >&2
fi

set -- --host "${MOCKHTTP_HOST:-0.0.0.0}" --port "${MOCKHTTP_PORT:-8080}" "$@"

# Host names the admin API accepts besides IP addresses and localhost: a compose service's
# name, say (MOCKHTTP_ALLOW_HOSTS="mockhttp mockhttp.internal").
for name in ${MOCKHTTP_ALLOW_HOSTS:-}; do
    set -- "$@" --allow-host "$name"
done

mocks="${MOCKHTTP_MOCKS:-/mocks}"
if [ -d "$mocks" ] && [ -n "$(find "$mocks" -maxdepth 3 -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -print -quit)" ]; then
    set -- "$@" "$mocks"
fi
exec mockhttp serve "$@"

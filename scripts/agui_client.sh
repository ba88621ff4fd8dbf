#!/usr/bin/env bash
# @ag-ui/client's HttpAgent (Node) reads AG-UI runs from `mockhttp serve`: a full run, a
# RUN_ERROR, a dropped connection, a cut, a stall and a duplicate terminal event.
# Installs the pinned packages (scripts/agui/package.json) into scripts/agui/node_modules
# (git-ignored) on first run.  Prints one line per case and a PASS/FAIL summary line.
# Usage: scripts/agui_client.sh   (PYTHON=... picks the interpreter that has mockhttp)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
python="${PYTHON:-python3}"
if [ ! -d "$here/agui/node_modules/@ag-ui/client" ]; then
  (cd "$here/agui" && npm ci --no-audit --no-fund --silent)
fi
# shellcheck source=serve.sh
. "$here/serve.sh"
serve "$here/agui/agui.yaml"
node "$here/agui/client.mjs" "$url"

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
  (cd "$here/agui" && npm install --no-audit --no-fund --no-package-lock --silent)
fi
log="$(mktemp)"
# import mockhttp.agui first: its reply kind is then known even where the installed
# package's entry points predate it (a source tree on PYTHONPATH)
PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" "$python" -c \
  'import sys, runpy, mockhttp.agui; sys.argv[0] = "mockhttp"; runpy.run_module("mockhttp", run_name="__main__")' \
  serve "$here/agui/agui.yaml" --port 0 --quiet >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 300); do
  url="$(head -n1 "$log")"
  case "$url" in http://*) break ;; esac
  sleep 0.1
done
case "$url" in http://*) ;; *) echo "FAIL: mockhttp serve did not start:"; cat "$log"; exit 1 ;; esac
node "$here/agui/client.mjs" "$url"

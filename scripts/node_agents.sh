#!/usr/bin/env bash
# The Vercel AI SDK (Node) runs its tool loop against `mockhttp serve` on a conversation
# mock file: Chat Completions and Responses, generateText and streamText, multi-step.
# Installs the pinned packages (scripts/node/package.json) into scripts/node/node_modules
# (git-ignored) on first run.  Prints one line per case and a PASS/FAIL summary line.
# Usage: scripts/node_agents.sh   (PYTHON=... picks the interpreter that has mockhttp)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
python="${PYTHON:-python3}"
if [ ! -d "$here/node/node_modules/ai" ]; then
  (cd "$here/node" && npm install --no-audit --no-fund --no-package-lock --silent)
fi
# shellcheck source=serve.sh
. "$here/serve.sh"
serve "$here/node/weather.yaml"
node "$here/node/agents.mjs" "$url"

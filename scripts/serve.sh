# Sourced by the Node client scripts: `serve FILE` starts `mockhttp serve FILE` on a free
# port from this source tree (every reply kind imported first, so a source tree newer than
# the installed package's entry points serves them too), sets $url, and stops it on exit.
# Needs $root (the repository) and $python (the interpreter that has mockhttp's deps).
serve() {
  log="$(mktemp)"
  PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" "$python" -c \
    'import runpy, sys, mockhttp.agui, mockhttp.mcp; sys.argv[0] = "mockhttp"; runpy.run_module("mockhttp", run_name="__main__")' \
    serve "$1" --port 0 --quiet >"$log" 2>&1 &
  server=$!
  trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -f "$log"' EXIT
  for _ in $(seq 300); do
    url="$(head -n1 "$log")"
    case "$url" in http://*) return 0 ;; esac
    sleep 0.1
  done
  echo "FAIL: mockhttp serve did not start:"
  cat "$log"
  exit 1
}

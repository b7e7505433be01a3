#!/bin/sh
# A Python venv for one job, made once: build/venv-NAME with its PyPI
# packages (Debian's python3 and python3-venv; scripts/deps.sh cluster).
# Usage: sh scripts/venv.sh dask   -> prints the venv's python
# Exits non-zero, with one line saying why, when it cannot be made (no
# venv module, the registry out of reach): callers say skipped.
set -eu
name=${1:?usage: sh scripts/venv.sh dask}
case $name in
dask) pkgs="distributed==2026.8.0" ;;
*) echo "venv.sh: unknown venv $name" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
venv=${VENV_DIR:-$top/build/venv-$name}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$venv/bin/python" -c "import distributed" 2>/dev/null; then
    rm -rf "$venv"
    "$py" -m venv "$venv" > /dev/null 2>&1 ||
        { echo "venv.sh: $py -m venv failed (python3-venv installed?)" >&2; exit 1; }
    "$venv/bin/pip" install -q $pkgs > "$venv.log" 2>&1 ||
        { echo "venv.sh: pip install $pkgs failed: $(tail -1 "$venv.log")" >&2; exit 1; }
fi
echo "$venv/bin/python"

# Shared by matrix.sh and release.sh (sourced): where this machine's CPythons are.
# shellcheck shell=bash

find_python() {  # X.Y -> the path of a GIL-enabled CPython X.Y, or nothing
  local want=$1 found="" dir
  local root=${PYENV_ROOT:-$HOME/.pyenv}
  if [ -d "$root/versions" ]; then
    dir=$(find "$root/versions" -mindepth 1 -maxdepth 1 -name "$want.*" -printf '%f\n' \
      | grep -E "^${want//./\\.}\.[0-9]+$" | sort -V | tail -1 || true)
    [ -z "$dir" ] || found=$root/versions/$dir/bin/python$want
  fi
  [ -n "$found" ] && [ -x "$found" ] || found=$(command -v "python$want" || true)
  [ -n "$found" ] || return 0
  "$found" -c "import sys, sysconfig
sys.exit(sys.version_info[:2] != tuple(map(int, '$want'.split('.')))
         or bool(sysconfig.get_config_var('Py_GIL_DISABLED')))" 2>/dev/null && echo "$found"
  return 0
}

find_freethreaded_python() {  # X.Y -> the path of a free-threaded CPython X.Y, or nothing
  # pythonX.Yt on the PATH, else for 3.13 the one freethreaded_python.sh builds (once, cached)
  local want=$1 found
  found=$(command -v "python${want}t" || true)
  if [ -n "$found" ] && "$found" -c "import sys, sysconfig
sys.exit(sys.version_info[:2] != tuple(map(int, '$want'.split('.')))
         or not sysconfig.get_config_var('Py_GIL_DISABLED'))" 2>/dev/null; then
    echo "$found"
  elif [ "$want" = 3.13 ]; then
    bash "$(dirname "${BASH_SOURCE[0]}")/freethreaded_python.sh" || true
  fi
}

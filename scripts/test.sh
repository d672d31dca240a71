#!/usr/bin/env bash
# The test command (README, .ci/run): install runscore NON-editable into a fresh
# virtualenv, lint and type-check, then run the suite from outside the repo so
# the tests import the installed wheel (a .sql file missing from package data
# fails here, not on a user's machine).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${RUNSCORE_TEST_VENV:-$repo/.venv-test}
py=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
# Non-editable, rebuilt every time: tests must see what a user would install.
# setuptools reuses build/ and would ship a SQL file deleted since the last build.
rm -rf "$repo/build"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$repo"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$repo[test]"
cd "$repo"
"$venv/bin/ruff" check .
"$venv/bin/ruff" format --check .
"$venv/bin/mypy" --strict -p runscore
# The suite runs from a temporary folder: a test path given relative to the repo
# (tests/routes, tests/x.py::test_y) is made absolute, so it names the same tests.
args=()
for a in "$@"; do
  if [[ "$a" != /* && "$a" != -* && -e "$repo/${a%%::*}" ]]; then
    args+=("$repo/$a")
  else
    args+=("$a")
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if [ ${#args[@]} -gt 0 ] && [[ " ${args[*]} " == *" $repo/tests"* ]]; then
  RUNSCORE_REPO="$repo" "$venv/bin/pytest" "${args[@]}"
else
  RUNSCORE_REPO="$repo" "$venv/bin/pytest" "$repo/tests" ${args[@]+"${args[@]}"}
fi

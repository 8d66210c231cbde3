#!/usr/bin/env bash
# The live reference's Python environment (issue 22): tests/reference/requirements.txt (torch CPU, transformers,
# peft, accelerate, every dependency pinned) installed into .venv-reference/ with Debian's python3. Installs only
# when the requirements file changed since the last install, so a second `scripts/test.sh` skips it in
# milliseconds. This is the only step that downloads Python packages; the tests themselves never do.
# scripts/run.sh does not need it: the product is the C++ binary.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-reference
requirements=tests/reference/requirements.txt
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$requirements" | cut -d' ' -f1)

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
echo "reference venv: installing $requirements into $venv/" >&2
[[ -x "$venv/bin/python" ]] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python" -c "import torch, transformers, peft, accelerate" # a broken install fails here, not in ctest
echo "$want" >"$stamp"

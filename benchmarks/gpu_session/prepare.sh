#!/bin/bash
# Prepare, on a machine with network, what one call on a lent GPU machine (Python 3.12, torch with
# CUDA, no network, no Jupyter) needs: wheels of the chapter-execution stack and the book's data
# packages, and every data set in one folder. Both go to .dev/ (git-ignored), carried with the call.
# Then, on the GPU machine: `bash benchmarks/gpu_session/run.sh` (results under $OUT).
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx "/.dev/" .git/info/exclude 2>/dev/null || echo "/.dev/" >> .git/info/exclude
mkdir -p .dev/whl
pins=$(grep -iE "^(papermill|jupytext|myst-nb|ipykernel|nbformat|jupyter_client|nbclient|jupyter_core|traitlets|pyzmq|tornado|comm|ipython|ipython_pygments_lexers|matplotlib-inline|nest-asyncio2|platformdirs|prompt_toolkit|wcwidth|pexpect|ptyprocess|stack-data|asttokens|executing|pure_eval|fastjsonschema|jsonschema|jsonschema-specifications|referencing|rpds-py|tenacity|entrypoints|lazy-importer|markdown-it-py|mdit-py-plugins|docutils|rdata|pytorch-optimizer|espeakng-loader|nitime)==" requirements.txt)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform any -d .dev/whl $pins
.venv/bin/python -c "from rnnbook import datasets; datasets.export_offline('.dev/data')"
du -sh .dev  # a call carries at most 64 MiB with the working tree

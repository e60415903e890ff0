#!/bin/bash
# Usage: LIMIT=530 bash benchmarks/gpu_session/run.sh   (seconds the gpu-profile build may use)
# One call on a lent GPU machine (prepared by prepare.sh): set-up, the GPU benchmark, the gpu tests,
# the smoke build on CUDA, and as much of the gpu-profile build as the time allows. Everything it
# learns lands under $OUT. SKIP_BENCH=1 leaves the benchmark out, LIMIT=0 the gpu-profile build,
# SKIP_TESTS=1 the gpu tests; SMOKE_JOBS sets the smoke build's parallel chapters (4).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
LIMIT=${LIMIT:-530}
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .dev/whl/*.whl > $OUT/setup.log 2>&1 || echo "pip install failed"
export PYTHONPATH=$PWD/src:/tmp/site RNNBOOK_DATA_DIR=$PWD/.dev/data
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/nvidia.txt 2>&1
python3 -c "import torch,papermill,jupytext,myst_nb,ipykernel,rdata,pytorch_optimizer;\
print(torch.__version__,torch.version.cuda,torch.cuda.get_device_name())" >> $OUT/nvidia.txt 2>&1
nproc >> $OUT/nvidia.txt; cat $OUT/nvidia.txt
if [ -z "${SKIP_BENCH:-}" ]; then
  echo "[$(el)s] benchmark"
  timeout 170 python3 benchmarks/gpu_ensemble.py --devices cuda --out $OUT/bench > $OUT/bench.log 2>&1
  echo "bench rc $?"; cut -c1-300 $OUT/bench.log
fi
if grep -qs "'graphs': True.*ms_per_network_step" $OUT/bench.log; then export RNNBOOK_CUDA_GRAPHS=1; fi
echo "[$(el)s] graphs=${RNNBOOK_CUDA_GRAPHS:-0}; gpu build, smoke build, gpu tests"
mkdir -p /tmp/g && cp -r src notebooks book _config.yml _toc.yml pyproject.toml /tmp/g/ 2>/dev/null
cp -r tests /tmp/g/ ; ls /tmp/g
[ "$LIMIT" -gt 0 ] && ( cd /tmp/g && timeout $(( LIMIT - $(el) )) python3 -m rnnbook build --profile gpu --no-html \
  --jobs 12 > $OUT/gpu_build.log 2>&1; echo "gpu build rc $? at $(el)s" >> $OUT/gpu_build.log ) &
GB=$!
mkdir -p /tmp/s && cp -r src notebooks book _config.yml _toc.yml pyproject.toml /tmp/s/
( cd /tmp/s && timeout 300 python3 -m rnnbook build --profile smoke --no-html \
  --jobs ${SMOKE_JOBS:-4} \
  > $OUT/smoke_build.log 2>&1; echo "smoke build rc $? at $(el)s" >> $OUT/smoke_build.log ) &
SB=$!
[ -n "${SKIP_TESTS:-}" ] || timeout 200 python3 -m pytest -p no:cacheprovider -m gpu tests -q -rs --ignore=tests/book \
  -n ${TEST_JOBS:-1} > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el)s" >> $OUT/gpu_tests.log
tail -5 $OUT/gpu_tests.log
wait $SB; tail -4 $OUT/smoke_build.log
[ "$LIMIT" -gt 0 ] && wait $GB && tail -30 $OUT/gpu_build.log
cd /tmp && tar czf $OUT/results.tgz --ignore-failed-read s/_build/claims.json s/_build/claims \
  s/_build/timings.json g/_build/claims.json g/_build/claims g/_build/timings.json \
  $(cd /tmp && find g/_build/stage -name '*.ipynb' 2>/dev/null) 2>/dev/null
ls -la $OUT; echo "[$(el)s] done"

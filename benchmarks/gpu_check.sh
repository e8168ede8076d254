#!/usr/bin/env bash
# The CUDA path on a machine with an NVIDIA GPU, in one go (issue 22, item 5):
#   1. benchmarks/bench_gpu.py: CUDA against this machine's CPU on the same inputs, outputs compared;
#   2. the quick suite with --device cuda --strict: does every verdict come out as expected on the GPU?
#   3. the quick suite with --device cpu on the same machine and the same worker count, for the wall-time ratio.
# Each stage has its own time limit and writes into OUTDIR as it goes, so a stage that fails or runs out of time
# loses nothing the earlier ones wrote. Python packages the machine lacks may be given as wheels in .whl/
# (installed with --no-deps into /tmp/site, which goes first on PYTHONPATH).
#
#   bash benchmarks/gpu_check.sh OUTDIR [WORKERS] [SUITE_LIMIT_S]
# CHECKS (default --all) and DEVICES (default "cuda cpu") narrow it, e.g. to test the script on a machine without a GPU.
set -u
OUT=${1:?usage: gpu_check.sh OUTDIR [WORKERS] [SUITE_LIMIT_S]}
WORKERS=${2:-8}
LIMIT=${3:-270}
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"

if compgen -G ".whl/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
# the entry points register the checks, so the project is installed (editable, offline, no dependencies)
"$PY" -m pip install -q --no-index --no-deps --no-build-isolation -e . || exit 1
"$PY" -m verify.native
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$PY" -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available(), \
'numpy', numpy.__version__, 'cpu threads', torch.get_num_threads())"

echo "== 1. bench_gpu.py"
timeout 120 "$PY" benchmarks/bench_gpu.py --json "$OUT/bench_gpu.json"

for device in ${DEVICES:-cuda cpu}; do
  echo "== quick suite --device $device --workers $WORKERS"
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  timeout "$LIMIT" "$PY" -m verify.cli run ${CHECKS:---all} --strict --quiet --device "$device" --workers "$WORKERS" \
    --results "/tmp/results_$device" 2>"$OUT/suite_$device.err"
  rc=$?
  echo "$device: exit $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
  tail -n 5 "$OUT/suite_$device.err"
  # every check's stored Result (written as it finished), without its arrays
  tar czf "$OUT/results_$device.tgz" -C /tmp --exclude='*.npz' "results_$device"
done

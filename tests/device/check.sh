#!/usr/bin/env bash
# The device check: on a machine with NVIDIA GPUs, the cuda/nccl path end to end, one summary.
#
#   bash tests/device/check.sh [OUT_DIR]          (from the repository root)
#
# Runs, on every GPU the machine has (one GPU: world size 1):
#   quick     advisor run, quick profile, cluster.device=cuda
#   standard  advisor run, standard profile, cut to fit (smaller bench, a 3-trial sweep)
#   tests     the tests that need a device (pytest -m device: NCCL's asynchronous work polled
#             and timed with device events, device out-of-memory recognised by its type)
# and prints one summary line per part, then a JSON summary. Each part has its own time limit;
# the whole check ends in about 7 minutes at most. Exit code: 0 when every part passed.
#
# Needs python3 with a CUDA torch; the advisor's other dependencies (hydra-core, omegaconf,
# pydantic, jinja2, psutil, pyyaml, rich, matplotlib) installed, or their wheels in $WHEELS.
# DEVICE=cpu runs the same parts on this host's CPUs (a dry run of the script itself).
set -uo pipefail
device="${DEVICE:-cuda}"
cd "$(dirname "$0")/../.."
out="${1:-${OUT:-/tmp/advisor-device-check}}"
mkdir -p "$out"
py="${PYTHON:-python3}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if [ -n "${WHEELS:-}" ]; then
  "$py" -m pip install -q --no-index --no-deps --target /tmp/advisor-site "$WHEELS"/*.whl \
    && export PYTHONPATH="$PYTHONPATH:/tmp/advisor-site"
fi
missing=$("$py" - <<'PY'
import importlib.util
names = ["torch", "hydra", "omegaconf", "pydantic", "jinja2", "psutil", "yaml", "rich", "matplotlib"]
print(" ".join(n for n in names if importlib.util.find_spec(n) is None))
PY
)
if [ -n "$missing" ]; then
  echo "device check: missing Python packages: $missing (install them or set WHEELS=DIR)" >&2
  exit 2
fi
if [ "$device" = cuda ]; then
  gpus=$("$py" -c 'import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)')
  if [ "$gpus" -lt 1 ]; then
    echo "device check: torch sees no CUDA device here (DEVICE=cpu for a dry run)" >&2
    exit 2
  fi
  echo "device check: $gpus GPU(s), $("$py" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))')"
else
  echo "device check: dry run on this host's CPUs (DEVICE=$device)"
fi

declare -a names codes secs
part() {  # part NAME LIMIT_S COMMAND...
  local name=$1 limit=$2 start rc
  shift 2
  start=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.log" 2>&1
  rc=$?
  names+=("$name"); codes+=("$rc"); secs+=("$(( $(date +%s) - start ))")
  printf '%-9s exit %-3s %4ss  %s\n' "$name" "$rc" "${secs[-1]}" \
    "$( (grep -E '^verdict:' "$out/$name.log" || tail -n 1 "$out/$name.log") | tail -n 1)"
}

part quick 120 "$py" -m advisor run "cluster.device=$device" "hydra.run.dir=$out/quick"
part standard 240 "$py" -m advisor run "cluster.device=$device" profile=standard \
  stages.bench.max_bytes=67108864 stages.bench.deadline_s=150 stages.bench.variant_deadline_s=40 \
  stages.sweep.max_trials=3 stages.sweep.scaling=false stages.sweep.deadline_s=150 \
  "hydra.run.dir=$out/standard"
part tests 120 "$py" -m pytest -q -p no:cacheprovider -m device tests/test_device.py

"$py" - "$out" "${names[*]}" "${codes[*]}" "${secs[*]}" <<'PY'
import json, sys
from pathlib import Path
out, names, codes, secs = Path(sys.argv[1]), *(a.split() for a in sys.argv[2:])
summary = {"parts": {}}
for name, code, sec in zip(names, codes, secs):
    part = {"exit": int(code), "seconds": int(sec)}
    facts = out / name / "facts.json"
    if facts.exists():
        data = json.loads(facts.read_text())
        cluster = data["cluster"]
        part["ranks"] = cluster["world_size"]
        part["backend"] = cluster["backend"]
        part["stages"] = {n: s["status"] for n, s in data["stages"].items()}
    summary["parts"][name] = part
summary["ok"] = all(p["exit"] == 0 for p in summary["parts"].values())
(out / "summary.json").write_text(json.dumps(summary, indent=2))
print(json.dumps(summary, indent=2))
sys.exit(0 if summary["ok"] else 1)
PY

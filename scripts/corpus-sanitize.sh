#!/usr/bin/env bash
# The hazard corpus (csrc/simt/corpus) under compute-sanitizer: which of NVIDIA's tools sees each
# bug that the SIMT executor reports. CUDA warps are 32 lanes, so only the bugs that break at 32
# can show there; the run covers every bug and every fixed twin anyway.
#
#   scripts/corpus-sanitize.sh [DEST]   here, no GPU needed: builds the corpus with nvcc (NVCC,
#                                       CUDA_HOME/CUDA_PATH, .venv-cuda/ or PATH; sm_90, or
#                                       WAVEKIT_CUDA_ARCHS) into DEST (default <repo>/.gpu-corpus)
#                                       with its runner, and prints the device invocation
# On the device, from the checkout root:
#   bash .gpu-corpus/run.sh             every bug and twin plain and under memcheck, racecheck,
#                                       synccheck and initcheck (JOBS in parallel, TIMEOUT seconds
#                                       each); writes $OUT/corpus-sanitize.md and the logs
#                                       ($OUT/corpus-logs.tar.gz)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/.gpu-corpus}"

nvcc="${NVCC:-}"
for home in "${CUDA_HOME:-}" "${CUDA_PATH:-}"; do
  if [ -z "$nvcc" ] && [ -n "$home" ] && [ -x "$home/bin/nvcc" ]; then nvcc="$home/bin/nvcc"; fi
done
if [ -z "$nvcc" ]; then
  nvcc="$(ls "$root"/.venv-cuda/lib/python3*/site-packages/nvidia/cu13/bin/nvcc 2>/dev/null | tail -n 1 || true)"
fi
nvcc="${nvcc:-$(command -v nvcc || true)}"
if [ -z "$nvcc" ]; then
  echo "no nvcc: run scripts/setup-cuda.sh or set NVCC" >&2
  exit 1
fi
archs="${WAVEKIT_CUDA_ARCHS:-90}"
gencode=()
for a in ${archs//,/ }; do gencode+=("-gencode=arch=compute_$a,code=sm_$a"); done

mkdir -p "$dest"
# As the library's CUDA build: no contraction; -lineinfo so the tools name source lines.
# upper_half_shift32's constant shift past the width is the bug it shows (warning 63).
"$nvcc" -std=c++17 -O2 -lineinfo --fmad=false -diag-suppress 63 "${gencode[@]}" \
  -I "$root/csrc" -L "$(dirname "$nvcc")/../lib" \
  -o "$dest/corpus_cuda" "$root"/csrc/simt/corpus/*.cu "$root/csrc/simt/corpus/cuda/main.cu"

cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine: every corpus bug and twin, plain and under each compute-sanitizer
# tool; writes $OUT/corpus-sanitize.md (the table for docs/HAZARDS.md), $OUT/cells.tsv and
# $OUT/corpus-logs.tar.gz (one log a run).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/wavekit-corpus-out}"
logs="$(mktemp -d)"
mkdir -p "$out"
cs="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)"
if [ -z "$cs" ]; then echo "compute-sanitizer not found"; exit 1; fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$cs" --version | tail -n 1
export here cs logs TIMEOUT="${TIMEOUT:-30}"

# One cell: "-" clean, "reported" (the tool's error exit), "hang" (killed after TIMEOUT),
# "fails" (the program's own CUDA error, no tool report).
one() {
  name="$1" variant="$2" tool="$3"
  log="$logs/$name.$variant.$tool.log"
  if [ "$tool" = plain ]; then
    timeout "$TIMEOUT" "$here/corpus_cuda" run "$name" "$variant" >"$log" 2>&1
  else
    timeout "$TIMEOUT" "$cs" --tool "$tool" --error-exitcode 9 --print-limit 10 \
      "$here/corpus_cuda" run "$name" "$variant" >"$log" 2>&1
  fi
  case $? in
    0) cell=- ;;
    9) cell=reported ;;
    124|137) cell=hang ;;
    *) cell=fails ;;
  esac
  printf '%s\t%s\t%s\t%s\n' "$name" "$variant" "$tool" "$cell"
}
export -f one

"$here/corpus_cuda" list >"$logs/list.txt"
while read -r name widths; do
  for variant in bug fixed; do
    for tool in plain memcheck racecheck synccheck initcheck; do
      printf '%s %s %s\n' "$name" "$variant" "$tool"
    done
  done
done <"$logs/list.txt" |
  xargs -P "${JOBS:-8}" -L 1 bash -c 'one "$0" "$1" "$2"' >"$logs/cells.tsv"

python3 - "$logs" "$out/corpus-sanitize.md" <<'PY'
import sys
logs, dest = sys.argv[1], sys.argv[2]
order = [l.split()[0] for l in open(f"{logs}/list.txt")]
widths = dict(l.split() for l in open(f"{logs}/list.txt"))
cells = {}
for line in open(f"{logs}/cells.tsv"):
    name, variant, tool, cell = line.rstrip("\n").split("\t")
    cells[name, variant, tool] = cell
tools = ["plain", "memcheck", "racecheck", "synccheck", "initcheck"]
rows = ["| bug | breaks at | " + " | ".join(tools) + " | fixed twin |",
        "|---|---|" + "---|" * len(tools) + "---|"]
for name in order:
    bug = [cells.get((name, "bug", t), "?") for t in tools]
    twin = [t for t in tools if cells.get((name, "fixed", t), "?") != "-"]
    twin_cell = "clean" if not twin else "; ".join(f"{t}: {cells[name, 'fixed', t]}" for t in twin)
    rows.append(f"| {name} | {widths[name]} | " + " | ".join(bug) + f" | {twin_cell} |")
open(dest, "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
cp "$logs/cells.tsv" "$out/"
tar czf "$out/corpus-logs.tar.gz" -C "$logs" .
RUN
chmod +x "$dest/run.sh"

ls -l "$dest"
rel="$(realpath --relative-to="$root" "$dest")"
cat <<MSG

Device invocation (run tool; "$rel" must sit, git-ignored, in the checkout the tool sends):
  run(kind="nvidia-h100-x1", carry=["$rel"], timeout_s=600,
      command="bash $rel/run.sh 2>&1 | tail -n 60")
MSG

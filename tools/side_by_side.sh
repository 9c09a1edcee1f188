#!/usr/bin/env bash
# Own work per person of two checkouts of mc3g, run at the same time, each pinned to one core,
# so that a shared machine's drift hits both, then again with the cores swapped, since one core
# may run faster than the other (docs/benchmarks.md):
#   MC3G_DATA_DIR=../shared/data bash tools/side_by_side.sh A/src B/src "adult gbm product" "german rf paper" ...
# HUNT_A and HUNT_B, when set, are each side's search settings as --hunt takes them: one checkout
# given twice compares two settings, e.g. HUNT_B=first_states=16 bash tools/side_by_side.sh src src ...
set -euo pipefail
a=$1 b=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
hunt_a=(${HUNT_A:+"$HUNT_A"}) hunt_b=(${HUNT_B:+"$HUNT_B"})
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NLTK_DATA=${NLTK_DATA:-$out}
for box in "$@"; do
  set -- $box
  PYTHONPATH=$a taskset -c 0 python "$here/own_work.py" measure "$1" "$2" "$3" "$out/a.json" "${hunt_a[@]}" &
  PYTHONPATH=$b taskset -c 1 python "$here/own_work.py" measure "$1" "$2" "$3" "$out/b.json" "${hunt_b[@]}" &
  wait
  PYTHONPATH=$a taskset -c 1 python "$here/own_work.py" measure "$1" "$2" "$3" "$out/a2.json" "${hunt_a[@]}" &
  PYTHONPATH=$b taskset -c 0 python "$here/own_work.py" measure "$1" "$2" "$3" "$out/b2.json" "${hunt_b[@]}" &
  wait
  echo "$box: $(python "$here/own_work.py" compare "$out/a.json" "$out/b.json" "$out/a2.json" "$out/b2.json")"
done

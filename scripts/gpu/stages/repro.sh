#!/usr/bin/env bash
# Sourced by scripts/gpu/run: repro, scripts/repro/*.cpp (C++ reproductions of stock MLX bugs)
# against each arm of $ARMS: repro.txt. REPROS: only these (names without .cpp; default all).

# Each reproduction, built against each arm's install and run on its GPU; a crashing case is
# run again under cuda-gdb for a backtrace.
run_repro() {
  local arm src exe out
  for arm in $ARMS; do
    for src in scripts/repro/*.cpp; do
      [[ -z ${REPROS:-} || " $REPROS " == *" $(basename "$src" .cpp) "* ]] || continue
      exe=$WORK/repro/$arm/$(basename "$src" .cpp)
      mkdir -p "$(dirname "$exe")"
      g++ -std=c++20 -g -O1 -I"$WORK/arms/$arm/include" "$src" -o "$exe" -L"$WORK/arms/$arm/lib" \
        -lmlx -Wl,-rpath,"$WORK/arms/$arm/lib" > "$LOGS/repro-build.log" 2>&1 ||
        { tail -n 20 "$LOGS/repro-build.log"; return 2; }
      out=$(MLX_PTX_CACHE_DIR=$WORK/ptx/$arm timeout 120 "$exe" 2>&1)
      printf '== %s %s\n%s\n' "$arm" "$(basename "$src")" "$out" | tee -a "$LOGS/repro.txt"
      for i in $(sed -n 's/.*(case \([0-9]*\))$/\1/p' <<< "$out" | head -n 1); do
        command -v cuda-gdb > /dev/null || break
        echo "-- backtrace of case $i" >> "$LOGS/repro.txt"
        MLX_PTX_CACHE_DIR=$WORK/ptx/$arm timeout 60 cuda-gdb -batch -ex run -ex bt --args "$exe" "$i" \
          2>&1 | grep -E '^#|signal|SIG' | head -n 30 >> "$LOGS/repro.txt"
      done
    done
  done
  tail -n 80 "$LOGS/repro.txt"
}

#include "mlx/backend/cuda/device/qmm_sm90.cuh"
#include <cstdio>
#include "probe_types.h"
int main() {
#define PRINT(name, T) printf("%s %zu %zu\n", #name, sizeof(T), alignof(T));
  PROBE_TYPES(PRINT)
}

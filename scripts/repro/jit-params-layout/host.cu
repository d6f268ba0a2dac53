#include "mlx/backend/cuda/quantized/qmm/gather_qmm_sm90_kernel.cuh"
#include <cstdio>
#include "probe_types.h"
int main() {
#define PRINT(name, T) printf("%s %zu %zu\n", #name, sizeof(T), alignof(T));
  PROBE_TYPES(PRINT)
}

#include "fused_causal_softmax.h"

#include <string_view>

#include "mlx/fast_primitives.h"
#include "mlx/primitives.h"

namespace mlx_ext {

std::unique_ptr<mlx::core::array> causal_softmax(const mlx::core::array& scores, bool precise) {
  MLX_SYS_LOCK;
  return mlx_sys::wrap(mlx::core::fast::causal_softmax(scores, precise));
}

bool is_fused_causal_softmax(const mlx::core::array& a) {
  MLX_SYS_LOCK;
  return a.has_primitive() && std::string_view(a.primitive().name()) == "CausalSoftmax";
}

} // namespace mlx_ext

#include "gate.h"

#include <chrono>
#include <stdexcept>

#include "mlx/backend/cpu/encoder.h"
#include "mlx/primitives.h"

namespace mlx_ext {

namespace mc = mlx::core;

namespace {

class GatePrimitive : public mc::UnaryPrimitive {
 public:
  GatePrimitive(mc::Stream stream, std::shared_ptr<GateState> state)
      : mc::UnaryPrimitive(stream), state_(std::move(state)) {}

  void eval_cpu(const std::vector<mc::array>& inputs, mc::array& out) override {
    out.copy_shared_buffer(inputs[0]);
    // On the stream's worker, in order with the kernels before and after it: the eval
    // that scheduled it cannot finish while the gate is closed.
    mc::cpu::get_command_encoder(stream()).dispatch([state = state_] {
      std::unique_lock lock(state->mtx);
      state->entered = true;
      state->cv.notify_all();
      state->cv.wait(lock, [&] { return state->open; });
    });
  }

  void eval_gpu(const std::vector<mc::array>&, mc::array&) override {
    throw std::invalid_argument("[gate] CPU streams only");
  }

  const char* name() const override {
    return "Gate";
  }

 private:
  std::shared_ptr<GateState> state_;
};

} // namespace

std::unique_ptr<Gate> new_gate() {
  return std::make_unique<Gate>();
}

std::unique_ptr<mc::array> gate_pass(const mc::array& x, const Gate& gate) {
  MLX_SYS_LOCK;
  if (mc::default_device() != mc::Device::cpu) {
    throw std::invalid_argument("[gate] CPU streams only");
  }
  auto stream = mc::default_stream(mc::Device::cpu);
  return mlx_sys::wrap(mc::array(
      x.shape(), x.dtype(), std::make_shared<GatePrimitive>(stream, gate.state), {x}));
}

bool gate_wait_entered(const Gate& gate, std::uint64_t timeout_ms) {
  auto& s = *gate.state;
  std::unique_lock lock(s.mtx);
  return s.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return s.entered; });
}

void gate_open(const Gate& gate) {
  auto& s = *gate.state;
  {
    std::lock_guard lock(s.mtx);
    s.open = true;
  }
  s.cv.notify_all();
}

} // namespace mlx_ext

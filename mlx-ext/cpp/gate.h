// A test gate: an identity op whose kernel, on its CPU stream's worker thread, reports that it
// started and then blocks until the gate is opened. It makes "this evaluation is still
// running" a fact a test can hold, instead of a timing guess.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "shim_common.h"

namespace mlx_ext {

struct GateState {
  std::mutex mtx;
  std::condition_variable cv;
  bool entered = false;
  bool open = false;
};

struct Gate {
  std::shared_ptr<GateState> state = std::make_shared<GateState>();
};

std::unique_ptr<Gate> new_gate();
// Identity of `x` on the thread's default stream of the CPU (errors on other devices), whose
// kernel waits for `gate` to open.
std::unique_ptr<mlx::core::array> gate_pass(const mlx::core::array& x, const Gate& gate);
// True once a kernel of `gate` has started; false if none did within `timeout_ms`.
bool gate_wait_entered(const Gate& gate, std::uint64_t timeout_ms);
// Lets every kernel of `gate`, running or future, finish.
void gate_open(const Gate& gate);

} // namespace mlx_ext

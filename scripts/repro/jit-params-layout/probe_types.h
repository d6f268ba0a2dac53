// Types whose sizes the host (nvcc) and NVRTC must agree on.
using Tile = cute::Shape<cute::Int<128>, cute::Int<64>, cute::Int<64>>;
using G = mlx::core::cu::gather_qmm_sm90_kernel_t<cutlass::bfloat16_t, cutlass::uint4b_t, Tile>;
using D = mlx::core::cu::qmm_sm90_kernel_t<64, cutlass::bfloat16_t, cutlass::uint4b_t, Tile>;
#define PROBE_TYPES(X) \
  X(G_Params, G::Params) X(G_ProblemShape, G::ProblemShape) X(G_Mainloop, G::MainloopParams) \
  X(G_Epilogue, G::EpilogueParams) X(G_Hw, cutlass::KernelHardwareInfo) X(G_Scheduler, G::TileSchedulerParams) \
  X(D_Params, D::Params) X(D_Mainloop, D::MainloopParams) X(D_Epilogue, D::EpilogueParams) X(D_Scheduler, D::TileSchedulerParams)

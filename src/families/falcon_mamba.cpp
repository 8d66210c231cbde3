// FalconMamba (models/falcon_mamba/modeling_falcon_mamba.py + configuration_falcon_mamba.py,
// transformers 4.47.1): Mamba's tensors and defaults exactly; the mixer additionally
// RMS-normalises dt, B and C without weights (mixer_rms_eps), and its dt_rms / b_c_rms buffers
// are not saved.
#include "families/mamba_common.hpp"

namespace neurarch::families {
namespace falcon_mamba_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return mamba::build(in, b, mamba::v1_stack(in.config)); }

}  // namespace
}  // namespace falcon_mamba_impl

const Family& falcon_mamba_family() {
  static const Family family{"falcon_mamba", "models/falcon_mamba/modeling_falcon_mamba.py",
                             classes("FalconMamba", {heads::ForCausalLM}), falcon_mamba_impl::build};
  return family;
}

}  // namespace neurarch::families

#include "families/hybrid_common.hpp"

#include <nlohmann/json.hpp>

namespace neurarch::families::hybrid {

blocks::MambaMixerSpec mamba2_mixer(const Config& c, std::int64_t hidden, const Mamba2Defaults& d) {
  const std::int64_t inner =
      d.inner > 0 ? d.inner : static_cast<std::int64_t>(c.number({"mamba_expand"}, 2) * static_cast<double>(hidden));
  const std::int64_t heads = c.dim({"mamba_n_heads"}, d.heads);
  const auto* head_dim = c.raw({"mamba_d_head"});
  return {.version = 2,
          .hidden = hidden,
          .inner = inner,
          .state = c.dim({"mamba_d_state"}, d.state),
          .conv_kernel = c.dim({"mamba_d_conv"}, 4),
          .heads = heads,
          .head_dim = !head_dim || head_dim->is_string() || head_dim->is_null() ? (heads > 0 ? inner / heads : 0)
                                                                                : c.dim({"mamba_d_head"}),
          .groups = c.dim({"mamba_n_groups"}, 1),
          .bias = c.flag({"mamba_proj_bias"}, false),
          .conv_bias = c.flag({"mamba_conv_bias"}, true)};
}

}  // namespace neurarch::families::hybrid

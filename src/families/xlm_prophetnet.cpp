// XLM-ProphetNet (models/deprecated/xlm_prophetnet/modeling_xlm_prophetnet.py, transformers 4.47.1):
// ProphetNet's code and config defaults under XLMProphetNet class names, for the multilingual
// checkpoints (whose configs set a larger vocab_size).
#include "families/prophetnet_common.hpp"

namespace neurarch::families {

const Family& xlm_prophetnet_family() {
  static const Family family{"xlm-prophetnet", "models/deprecated/xlm_prophetnet/modeling_xlm_prophetnet.py",
                             classes("XLMProphetNet", {heads::ForConditionalGeneration, heads::ForCausalLM}),
                             prophetnet::build};
  return family;
}

}  // namespace neurarch::families
